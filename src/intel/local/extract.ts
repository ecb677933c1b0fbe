/**
 * The local entity extractor: rules and two libraries (chrono-node for dates,
 * libphonenumber-js for phones), no model. Deterministic, and linear in the input, which is
 * capped, because it runs on the server's main thread on untrusted mail.
 *
 * Finders run from the most specific shape to the least, and each claims the characters it
 * matched: a digit run inside a link, an address or a tracking number is then not read
 * again as a date, a sum or a phone number.
 */
import type { Extractions, IntelMessage } from "../types.ts";
import { findAddresses } from "./addresses.ts";
import { findAmounts } from "./amounts.ts";
import { findEmails, findUrls } from "./contacts.ts";
import { findActionItems, findQuestions } from "./cues.ts";
import { findDates } from "./dates.ts";
import { findIdentifiers } from "./identifiers.ts";
import { readingOf } from "./locale.ts";
import { findOrganizations, findPeople } from "./names.ts";
import { findPhones } from "./phones.ts";
import { findInvoiceNumbers, findTrackingNumbers } from "./references.ts";
import { Claims, MAX_INPUT, type Span } from "./spans.ts";

export function extract(m: IntelMessage): Extractions {
  const body = m.text.slice(0, MAX_INPUT);
  // Subjects carry dates, sums and invoice numbers too ("Invoice 4821 due Friday").
  const text = `${m.subject.slice(0, 1000)}\n${body}`;
  // Language and country decide how "03/04" and "020 7946 0321" read.
  const reading = readingOf(m, text);
  const claims = new Claims(text.length);
  const inside = (s: Span) => claims.overlaps(s);
  const claimAll = (spans: Span[]) => spans.forEach((s) => claims.claim(s));

  const urls = findUrls(text);
  claimAll(urls.spans);
  const emails = findEmails(text, inside);
  claimAll(emails.spans);
  const tracking = findTrackingNumbers(text, inside);
  const invoices = findInvoiceNumbers(text, inside);
  claimAll([...tracking, ...invoices]);
  // Account numbers, IBANs, order numbers, PINs: not reported, only kept from being misread.
  claimAll(findIdentifiers(text).filter((s) => !inside(s)));
  const amounts = findAmounts(text).filter((a) => !inside(a));
  claimAll(amounts);
  const dates = findDates(text, m.date, reading, inside);
  claimAll(dates);
  const phones = findPhones(text, reading.country, inside);

  return {
    dates: dates.map(({ text, date, time, kind }) => ({ text, date, time, kind })),
    // Each sum once: "Total $20 … you paid $20" is one amount.
    amounts: distinct(amounts, (a) => `${a.currency} ${a.value}`).map(({ text, value, currency }) => ({ text, value, currency })),
    people: findPeople(m, body),
    organizations: findOrganizations(text),
    addresses: findAddresses(body),
    phones: phones.map(({ text, e164 }) => ({ text, e164 })),
    urls: urls.items,
    emails: emails.items,
    tracking_numbers: tracking.map(({ value, carrier }) => ({ value, carrier })),
    invoice_numbers: invoices.map(({ value }) => ({ value })),
    action_items: findActionItems(body, m.date),
    questions: findQuestions(body),
  };
}

/** The first of each group of items with the same key. */
function distinct<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((t) => {
    const k = key(t);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
