import { t, type TSchema } from "elysia";
import type { IntelResult } from "../../intel/service.ts";
import { iso, Timestamp, Uuid } from "../schemas.ts";

const Nullable = <T extends TSchema>(s: T) => t.Union([s, t.Null()]);
const Ymd = t.String({ description: "YYYY-MM-DD" });
const obj = <P extends Record<string, TSchema>>(props: P, description?: string) => t.Object(props, { additionalProperties: false, ...(description ? { description } : {}) });

export const IntelBody = t.Optional(
  obj({ force: t.Optional(t.Boolean({ description: "make a new result even when the cached one is fresh and was made by the configured engine" })) }),
);

const Engine = obj(
  {
    name: t.String({ description: "`local` or `openai-compatible`" }),
    version: t.String(),
    model: Nullable(t.String()),
    fallback_reason: Nullable(t.String({ description: "why the configured engine's answer was not used (the local engine made this one); null when it was" })),
  },
  "The engine that made the result",
);

const meta = { engine: Engine, generated_at: Timestamp, cached: t.Boolean({ description: "true when read from the cache, false when made by this request" }) };

export const SummaryResponse = obj({ message_id: Uuid(), summary: t.String(), key_points: t.Array(t.String()), ...meta });

export const ExtractionsResponse = obj({
  message_id: Uuid(),
  dates: t.Array(obj({ text: t.String(), date: Ymd, time: Nullable(t.String({ description: "HH:MM" })), kind: t.Union([t.Literal("deadline"), t.Literal("event"), t.Literal("date")]) })),
  amounts: t.Array(obj({ text: t.String(), value: t.Number(), currency: t.String({ description: "ISO 4217" }) })),
  people: t.Array(obj({ name: t.String(), email: Nullable(t.String()) })),
  organizations: t.Array(obj({ name: t.String() })),
  addresses: t.Array(obj({ text: t.String() }), { description: "postal addresses" }),
  phones: t.Array(obj({ text: t.String(), e164: Nullable(t.String()) })),
  urls: t.Array(obj({ url: t.String(), domain: t.String() })),
  emails: t.Array(obj({ address: t.String() })),
  tracking_numbers: t.Array(obj({ value: t.String(), carrier: Nullable(t.String()) })),
  invoice_numbers: t.Array(obj({ value: t.String() })),
  action_items: t.Array(obj({ text: t.String(), due: Nullable(Ymd) })),
  questions: t.Array(obj({ text: t.String() })),
  ...meta,
});

export const DigestResponse = obj({
  thread_id: Uuid(),
  participants: t.Array(obj({ address: t.String(), name: Nullable(t.String()), role: t.Union([t.Literal("self"), t.Literal("external")]), messages: t.Integer() })),
  timeline: t.Array(obj({ message_id: Uuid(), at: Timestamp, from: t.String(), direction: t.Union([t.Literal("inbound"), t.Literal("outbound")]), summary: t.String() })),
  decisions: t.Array(obj({ text: t.String(), message_id: Uuid() })),
  open_questions: t.Array(obj({ text: t.String(), message_id: Uuid(), asked_by: t.String() })),
  next_steps: t.Array(obj({ text: t.String(), message_id: Uuid(), due: Nullable(Ymd) })),
  latest_state: obj({
    status: t.Union([t.Literal("open"), t.Literal("archived")]),
    last_message_at: Nullable(Timestamp),
    last_from: Nullable(t.String()),
    awaiting: Nullable(t.Union([t.Literal("us"), t.Literal("them")])),
    summary: t.String(),
  }),
  ...meta,
});

const Counts = t.Record(t.String(), t.Integer());

export const SenderIntelligenceResponse = obj({
  profile_id: Uuid(),
  address: t.String(),
  display_name: Nullable(t.String()),
  disposition: t.Union([t.Literal("neutral"), t.Literal("trusted"), t.Literal("blocked")]),
  volume: obj({ inbound: t.Integer(), last_7_days: t.Integer(), last_30_days: t.Integer(), outbound_to: t.Integer({ description: "messages the account's mailboxes sent to this address" }) }),
  first_seen_at: Nullable(Timestamp),
  last_seen_at: Nullable(Timestamp),
  threads: t.Integer({ description: "conversations the sender wrote in" }),
  replied_threads: t.Integer({ description: "of those, the ones a mailbox answered after the sender wrote" }),
  reply_rate: Nullable(t.Number({ description: "replied_threads / threads; null with no threads" })),
  triage: Counts,
  risk: Counts,
  signals: Counts,
  authentication: obj({ spf: Counts, dkim: Counts, dmarc: Counts }),
  assessment: t.String(),
  standing: t.Union([t.Literal("established"), t.Literal("new"), t.Literal("occasional"), t.Literal("unwanted"), t.Literal("suspicious")]),
  ...meta,
});

export const presentIntel = (idField: "message_id" | "thread_id" | "profile_id", r: IntelResult) => ({
  [idField]: r.subjectId,
  ...r.result,
  engine: { name: r.info.engine, version: r.info.version, model: r.info.model, fallback_reason: r.fallbackReason },
  generated_at: iso(r.generatedAt),
  cached: r.cached,
});
