/**
 * A thread at a glance: who is in it, what each message said, what was settled, what is
 * still unanswered, what has to happen next, and whose turn it is.
 *
 * Built from the per-message summary and cues, so it is as deterministic as they are.
 * Whether a question was answered is judged by turn-taking alone: once someone other than
 * the asker has written, the question counts as answered. That is wrong when the reply
 * ignores it, but it never keeps a question open that the conversation has moved past.
 */
import type { Digest, IntelMessage, IntelThread } from "../types.ts";
import { findActionItems, findDecisions, findQuestions } from "./cues.ts";
import { summarize } from "./summary.ts";
import { clip } from "./text.ts";

/** Characters of a timeline entry: one line. */
const MAX_LINE = 160;
/** Entries per list (decisions, questions, next steps): the latest are kept, past this a list stops being read. */
const MAX_LIST = 100;

export function digest(t: IntelThread): Digest {
  const messages = t.messages;
  const last = messages.at(-1);
  // Everything about one message is read before the next, so the cues' caches of recent
  // texts serve each message's sentences and requests to every step.
  const read: Reading[] = messages.map((m) => ({
    summary: summarize(m).summary,
    decisions: findDecisions(m.text),
    requests: findActionItems(m.text, m.date),
  }));
  return {
    participants: participants(t),
    timeline: messages.map((m, i) => ({
      message_id: m.id,
      at: iso(m.date),
      from: m.from,
      direction: m.direction,
      summary: clip(read[i]!.summary, MAX_LINE),
    })),
    decisions: decisions(messages, read).slice(-MAX_LIST),
    open_questions: openQuestions(messages).slice(-MAX_LIST),
    next_steps: nextSteps(messages, read).slice(-MAX_LIST),
    latest_state: {
      status: t.status,
      last_message_at: last ? iso(last.date) : null,
      last_from: last ? last.from : null,
      awaiting: last ? (last.direction === "inbound" ? "us" : "them") : null,
      summary: read.at(-1)?.summary ?? "(no messages)",
    },
  };
}

/** What the cues made of one message. */
interface Reading {
  summary: string;
  decisions: { text: string }[];
  requests: { text: string; due: string | null }[];
}

/** Everyone seen in From, To or Cc, in the order first seen, with how many messages each sent. */
function participants(t: IntelThread): Digest["participants"] {
  const self = t.self.toLowerCase();
  const seen = new Map<string, Digest["participants"][number]>();
  const see = (address: string) => {
    const key = address.trim().toLowerCase();
    if (!key) return undefined;
    let p = seen.get(key);
    if (!p) seen.set(key, (p = { address: key, name: null, role: key === self ? "self" : "external", messages: 0 }));
    return p;
  };
  for (const m of t.messages) {
    const sender = see(m.from);
    if (sender) {
      sender.messages++;
      // The latest display name wins: people fix how their name shows.
      if (m.fromName?.trim()) sender.name = m.fromName.trim();
    }
    for (const a of [...m.to, ...m.cc]) see(a);
  }
  return [...seen.values()];
}

/** Decisions in the order they were made; one restated later keeps its first message. */
function decisions(messages: IntelMessage[], read: Reading[]): Digest["decisions"] {
  const out: Digest["decisions"] = [];
  const said = new Set<string>();
  for (const [i, m] of messages.entries()) {
    for (const d of read[i]!.decisions) {
      const key = d.text.toLowerCase();
      if (said.has(key)) continue;
      said.add(key);
      out.push({ text: d.text, message_id: m.id });
    }
  }
  return out;
}

/**
 * Questions nobody else has written since. Only the trailing run of messages from one
 * sender can hold any: every earlier message was followed by someone else's.
 */
function openQuestions(messages: IntelMessage[]): Digest["open_questions"] {
  if (messages.length === 0) return [];
  const asker = messages.at(-1)!.from.toLowerCase();
  let from = messages.length - 1;
  while (from > 0 && messages[from - 1]!.from.toLowerCase() === asker) from--;
  return messages
    .slice(from)
    .flatMap((m) => findQuestions(m.text).map((q) => ({ text: q.text, message_id: m.id, asked_by: m.from })));
}

/**
 * What is to be done: the requests in the last two messages, which are still current,
 * and any earlier request whose due date has not passed by the last message.
 */
function nextSteps(messages: IntelMessage[], read: Reading[]): Digest["next_steps"] {
  if (messages.length === 0) return [];
  const recent = messages.length - 2;
  const now = day(messages.at(-1)!.date);
  const out: Digest["next_steps"] = [];
  const listed = new Set<string>();
  messages.forEach((m, i) => {
    for (const a of read[i]!.requests) {
      const current = i >= recent || (a.due !== null && now !== null && a.due >= now);
      const key = `${m.id}\n${a.text}`;
      if (!current || listed.has(key)) continue;
      listed.add(key);
      out.push({ text: a.text, message_id: m.id, due: a.due });
    }
  });
  return out;
}

/**
 * The calendar day of a date as the cues compute due dates (the process's time zone), so
 * the two compare as strings.
 */
function day(d: Date): string | null {
  if (!Number.isFinite(d.getTime())) return null;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** ISO time; a message with an unreadable date still gets a timeline entry. */
const iso = (d: Date) => (Number.isFinite(d.getTime()) ? d.toISOString() : new Date(0).toISOString());
