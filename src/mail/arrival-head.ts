import addressparser from "nodemailer/lib/addressparser";
import { normalizeAddress } from "../domain/email.ts";
import { normalizeSubject } from "./threading.ts";
import type { HeaderField } from "./types.ts";

/**
 * What the owner actor needs of a message's head when it arrives: what the list shows and a
 * reply needs until processing (From, Subject, Reply-To, Cc), and everything threading reads
 * (Message-ID, In-Reply-To, References, the parties). Message ids take mailparser's form
 * (`<…>`), so what is stored at arrival and what processing stores compare equal.
 */
export interface ArrivalHead {
  from: string;
  /** Shown until processing; bounded. */
  subject: string;
  /** The subject match key, read from the whole subject (src/mail/threading.ts). */
  subjectKey: string;
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  replyTo: string[];
  cc: string[];
  /** Valid addresses of From, To and Cc, lowercased. */
  parties: string[];
}

/** Bounds of what one arrival carries to the actor (the head itself is bounded by the reader). */
const MAX_SUBJECT = 998;
const MAX_REFERENCES = 100;
const MAX_ADDRESSES = 1000;

/** Reads the head's fields the way processing will; bounded, never throws. */
export function arrivalHead(headers: HeaderField[]): ArrivalHead {
  const get = (k: string) => headers.find((h) => h.key.toLowerCase() === k)?.value ?? "";
  const from = addressesOf(get("from"))[0] ?? "";
  const refs = get("references").split(/\s+/).map(messageIdFormat).filter((x): x is string => x !== null);
  const cc = addressesOf(get("cc")).slice(0, MAX_ADDRESSES);
  const parties = [...addressesOf(get("from")), ...addressesOf(get("to")), ...cc].slice(0, MAX_ADDRESSES);
  return {
    from,
    subject: get("subject").slice(0, MAX_SUBJECT),
    subjectKey: normalizeSubject(get("subject")),
    messageId: messageIdFormat(get("message-id")),
    inReplyTo: messageIdFormat(get("in-reply-to")),
    references: refs.slice(-MAX_REFERENCES),
    replyTo: addressesOf(get("reply-to")).slice(0, MAX_ADDRESSES),
    cc,
    parties,
  };
}

/** mailparser's ensureMessageIDFormat: wrapped in angle brackets, empty is none. */
function messageIdFormat(value: string): string | null {
  const v = value.trim();
  if (!v) return null;
  return `${v.startsWith("<") ? "" : "<"}${v}${v.endsWith(">") ? "" : ">"}`;
}

function addressesOf(value: string): string[] {
  if (!value) return [];
  const out: string[] = [];
  const visit = (list: ReturnType<typeof addressparser>) => {
    for (const a of list) {
      if ("group" in a && a.group) visit(a.group);
      else if ("address" in a && a.address) {
        const checked = normalizeAddress(a.address);
        if (checked.ok) out.push(checked.address);
      }
    }
  };
  try {
    visit(addressparser(value));
  } catch {
    return out;
  }
  return out;
}
