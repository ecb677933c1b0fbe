import { createHash } from "node:crypto";
import type { MessageRow, ThreadRow } from "../../db/schema/index.ts";
import { extractText } from "../mail/extract.ts";
import type { IntelMessage, IntelThread } from "./types.ts";

/** Messages of a thread a digest reads: the latest ones, when a thread is longer. */
export const DIGEST_MAX_MESSAGES = 100;

const header = (row: MessageRow, name: string) => row.headers.find((h) => h.key.toLowerCase() === name)?.value ?? null;

/** `"Jane Doe" <jane@example.com>` → Jane Doe; null for a bare address. */
export function displayName(from: string | null): string | null {
  if (!from) return null;
  const m = /^\s*"?([^"<]*?)"?\s*<[^>]*>\s*$/.exec(from.slice(0, 500));
  const name = m?.[1]?.trim();
  return name ? name : null;
}

/** The parts to make a message's text from, when it has no extracted_text (outbound mail, or not processed yet). */
export function missingText(row: MessageRow): { text: string | null; html: string | null } | null {
  return row.extractedText === null ? { text: row.textBody, html: row.htmlBody } : null;
}

/** A stored message as the engines see it; `text` is its text when made elsewhere (missingText). */
export function messageInput(row: MessageRow, fromName: string | null = null, text?: string): IntelMessage {
  const sent = Date.parse(header(row, "date") ?? "");
  return {
    id: row.id,
    direction: row.direction,
    from: row.fromAddress,
    fromName: fromName ?? displayName(header(row, "from")),
    to: row.toAddress
      .split(",")
      .map((a) => a.trim())
      .filter(Boolean),
    cc: row.cc,
    subject: row.subject,
    // Outbound mail has no extracted_text: its text part, or its HTML as text.
    text: text ?? row.extractedText ?? extractText({ text: row.textBody, html: row.htmlBody }),
    date: Number.isFinite(sent) ? new Date(sent) : row.createdAt,
  };
}

export function threadInput(thread: ThreadRow, self: string, rows: MessageRow[], texts: (string | undefined)[] = []): IntelThread {
  return { id: thread.id, subject: thread.subject, status: thread.status, self, messages: rows.map((r, i) => messageInput(r, null, texts[i])) };
}

/** What a result was made from, as a short hash: a different one means the result is stale. */
export function fingerprint(input: unknown): string {
  return createHash("sha256").update(JSON.stringify(input)).digest("base64url").slice(0, 22);
}
