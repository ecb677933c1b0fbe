/**
 * What the intelligence engines read and write. Engines see plain values, never rows or
 * HTTP: the service turns messages and threads into these, and stores what comes back.
 */

/** One message as an engine sees it. */
export interface IntelMessage {
  id: string;
  direction: "inbound" | "outbound";
  /** Sender address, lowercase. */
  from: string;
  /** Sender display name when the From header had one. */
  fromName: string | null;
  to: string[];
  cc: string[];
  subject: string;
  /**
   * What the sender wrote this time, as plain text: the message's `extracted_text` (quoted
   * history and signatures already cut), or the text body when there is none.
   */
  text: string;
  /** When it was sent (Date header) or stored; relative dates ("next Friday") resolve against it. */
  date: Date;
}

/** A thread as an engine sees it: its messages oldest first. */
export interface IntelThread {
  id: string;
  subject: string;
  status: "open" | "archived";
  /** The mailbox's own address: who "we" are in the conversation. */
  self: string;
  messages: IntelMessage[];
}

export interface ExtractedDate {
  /** The text it was read from, as written. */
  text: string;
  /** Calendar date, YYYY-MM-DD. */
  date: string;
  /** Local time of day HH:MM when the text gave one, else null. */
  time: string | null;
  /** `deadline` when the text says something is due by then ("by", "due", "no later than", "deadline"). */
  kind: "deadline" | "event" | "date";
}

export interface ExtractedAmount {
  text: string;
  value: number;
  /** ISO 4217 code: USD, EUR, GBP, … */
  currency: string;
}

export interface Extractions {
  dates: ExtractedDate[];
  amounts: ExtractedAmount[];
  people: { name: string; email: string | null }[];
  organizations: { name: string }[];
  /** Postal addresses. */
  addresses: { text: string }[];
  phones: { text: string; e164: string | null }[];
  urls: { url: string; domain: string }[];
  /** Email addresses written in the text, lowercase. */
  emails: { address: string }[];
  tracking_numbers: { value: string; carrier: string | null }[];
  invoice_numbers: { value: string }[];
  /** Requests made of the reader. `due` is YYYY-MM-DD when the sentence carries a date. */
  action_items: { text: string; due: string | null }[];
  questions: { text: string }[];
}

export interface Summary {
  /** A few sentences, at most ~400 characters. */
  summary: string;
  /** Up to five short points, in the order they appear. */
  key_points: string[];
}

export interface Digest {
  participants: { address: string; name: string | null; role: "self" | "external"; messages: number }[];
  /** One entry per message, oldest first. */
  timeline: { message_id: string; at: string; from: string; direction: "inbound" | "outbound"; summary: string }[];
  decisions: { text: string; message_id: string }[];
  /** Questions nobody has answered since they were asked. */
  open_questions: { text: string; message_id: string; asked_by: string }[];
  next_steps: { text: string; message_id: string; due: string | null }[];
  latest_state: {
    status: "open" | "archived";
    last_message_at: string | null;
    last_from: string | null;
    /** Who owes the next message: `us` when the last word was theirs, `them` when it was ours. */
    awaiting: "us" | "them" | null;
    summary: string;
  };
}
