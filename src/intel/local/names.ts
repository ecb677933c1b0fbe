/**
 * People and organisations a message names.
 *
 * Without a model, names are read only where mail puts them in predictable places: the
 * sender's display name, "Jane Doe <jane@x.com>" in the text, the name after a greeting
 * ("Hi Bob,") and the name under a sign-off ("Thanks,\nJane"). Organisations are runs of
 * capitalised words ending in a legal or institutional word ("Acme Widgets Inc.",
 * "First National Bank") or starting one ("University of Toronto").
 */
import type { IntelMessage } from "../types.ts";

export interface Person {
  name: string;
  email: string | null;
}

// One capitalised word: a letter, then letters, apostrophes, hyphens or dots. Bounded.
const WORD = String.raw`\p{Lu}[\p{L}'’.\-]{0,30}`;
const NAME = String.raw`${WORD}(?:[ \t]+${WORD}){0,3}`;

const NAME_WITH_ADDRESS = new RegExp(
  String.raw`(?<![\p{L}])(${WORD}(?:[ \t]+${WORD}){1,3})[ \t]*<([A-Za-z0-9._%+\-]{1,64}@[A-Za-z0-9.\-]{1,253})>`,
  "gu",
);
// The greeting word in any case, then (case-sensitively) a capitalised name: "hi sweetie"
// greets no one by name.
const GREETING_WORD =
  /^(?:hi|hello|hey|dear|hiya|greetings|good (?:morning|afternoon|evening))[ \t,]+(?:(?:mr|mrs|ms|miss|dr|prof)\.?[ \t]+)?/i;
const GREETED = new RegExp(String.raw`^(${NAME})[ \t]*[,!:.\-]?[ \t]*$`, "u");
const SIGN_OFF =
  /^(?:thanks|thank you|thanks again|many thanks|thx|best|best wishes|all the best|regards|best regards|kind regards|warm regards|warmly|cheers|sincerely|yours sincerely|yours truly|yours|talk soon|take care|respectfully|br|cordially)[ \t]*[,!.\-]?(?:[ \t]+(.+))?$/i;
const NAME_LINE = new RegExp(String.raw`^(${WORD}(?:[ \t]+${WORD}){0,2})$`, "u");
/** Words that follow "Hi" without being a name. */
const NOT_NAMES = new Set([
  "all", "team", "everyone", "everybody", "there", "folks", "guys", "friends", "friend", "sir", "madam", "sir or madam",
  "colleagues", "customer", "valued customer", "member", "user", "again", "both", "y'all", "you", "hiring manager",
  "support", "the team", "admin", "world",
]);
/** Words that make a name a service, a team or a company rather than a person. */
const NOT_PERSON =
  /\b(?:team|support|help|helpdesk|service|services|notifications?|noreply|no-reply|info|admin|billing|sales|newsletter|alerts?|updates?|store|shop|inc|llc|ltd|gmbh|ag|co|corp|pty|bank|news|the|via|do not reply|customer|accounts?|payable|receivable|department|office|security|payroll|refunds?|delivery|orders?|shipping|university|school)\b|[@\d|:&]/i;
/** Mailbox names that belong to a role, not a person ("billing@", "ebill@", "orders@"). */
const ROLE_MAILBOX =
  /^(?:e?bills?|billing|invoices?|receipts?|orders?|shipping|ship-confirm|noreply|no-reply|donotreply|do-not-reply|notifications?|notices?|alerts?|news|newsletters?|info|hello|hi|contact|support|help|team|admin|accounts?|finance|ap|ar|ap-dept|sales|deals|marketing|ops|hr|jobs|careers|itinerary|refunds?|rechnung|buchhaltung|kontakt|contracts?|legal|security|pta|office|reception|events?|press|bookings?|reservations?)$/i;
/** People reported per message: a longer list is a mailing-list dump, and merging is quadratic. */
const MAX_PEOPLE = 50;
/** Lines read for greetings and sign-offs: a name is never further in than this. */
const MAX_LINES = 400;

/** The people a message names, each once, with an address when one goes with the name. */
export function findPeople(m: IntelMessage, text: string): Person[] {
  const out: Person[] = [];
  const add = (raw: string, email: string | null) => {
    const name = tidy(raw);
    if (out.length >= MAX_PEOPLE || !isPersonName(name)) return;
    // "Marcus" signing off is "Marcus Lee <marcus@…>" again: one person, the fuller name.
    const same = out.find((p) => sameName(p.name, name) || (email !== null && p.email === email && firstWord(p.name) === firstWord(name)));
    if (!same) out.push({ name, email });
    else {
      same.email ??= email;
      if (name.length > same.name.length) same.name = name;
    }
  };
  if (m.fromName && isSenderPerson(tidy(m.fromName), m.from)) add(m.fromName, m.from);
  NAME_WITH_ADDRESS.lastIndex = 0;
  for (let x = NAME_WITH_ADDRESS.exec(text); x; x = NAME_WITH_ADDRESS.exec(text)) {
    // "Contact Bob Smith <bob@…>": the words before the name are the sentence's.
    add(x[1]!.replace(LEADING, ""), x[2]!.toLowerCase());
  }

  const lines = text.split("\n", MAX_LINES).map((l) => l.trim());
  const first = lines.find((l) => l !== "");
  const opener = first ? GREETING_WORD.exec(first) : null;
  const greeted = opener ? GREETED.exec(first!.slice(opener[0].length))?.[1] : undefined;
  if (greeted && !NOT_NAMES.has(greeted.toLowerCase())) add(greeted, recipientAddress(m, greeted));
  for (let i = 0; i < lines.length; i++) {
    const s = SIGN_OFF.exec(lines[i]!);
    if (!s) continue;
    const next = s[1] ?? lines.slice(i + 1, i + 3).find((l) => l !== "");
    const name = next ? NAME_LINE.exec(next.trim())?.[1] : undefined;
    if (name) add(name, senderAddress(m, name));
  }
  return out;
}

const firstWord = (name: string) => name.split(" ")[0]!.toLowerCase();
const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Whether the From display name is a person's: not a service's name, and either it matches
 * the mailbox ("Sam Whitaker <sam.whitaker@…>", "Kev <kevin.b@…>") or the mailbox is not
 * a role's ("billing@", "orders@").
 */
function isSenderPerson(name: string, from: string): boolean {
  if (!isPersonName(name)) return false;
  const local = from.split("@")[0]!.toLowerCase();
  const words = name.toLowerCase().normalize("NFD").replace(/[\u0300-\u036f]/g, "").split(" ");
  if (words.some((w) => w.length >= 3 && local.includes(w))) return true;
  return !ROLE_MAILBOX.test(local);
}

const tidy = (s: string) => s.replace(/^["'“]+|["'”]+$/g, "").replace(/\s+/g, " ").trim();

function isPersonName(name: string): boolean {
  if (name.length < 2 || name.length > 60 || NOT_PERSON.test(name)) return false;
  const words = name.split(" ");
  // An all-capitals word of two letters or more ("PTA", "B.V.", "HMRC") names an organisation.
  const acronym = words.some((w) => /^\p{Lu}{2,}$/u.test(w.replace(/\./g, "")));
  return words.length <= 4 && !acronym && words.every((w) => /^\p{L}/u.test(w)) && !NOT_NAMES.has(name.toLowerCase());
}

/** The sender's address when the signed name is the sender's. */
function senderAddress(m: IntelMessage, name: string): string | null {
  const first = name.split(" ")[0]!.toLowerCase();
  const own = m.fromName?.toLowerCase().split(/\s+/) ?? [];
  return own.includes(first) || m.from.split("@")[0]!.toLowerCase().includes(first) ? m.from : null;
}

/** The one recipient whose address carries the greeted name, if exactly one does. */
function recipientAddress(m: IntelMessage, name: string): string | null {
  const first = name.split(" ")[0]!.toLowerCase();
  const matches = [...m.to, ...m.cc].filter((a) => a.split("@")[0]!.toLowerCase().includes(first));
  return matches.length === 1 ? matches[0]!.toLowerCase() : null;
}

// --- organisations -------------------------------------------------------------------

// Legal forms that may follow a comma ("Acme Cloud, Inc."), and other endings that may not:
// "Reno, NV" is a city and a state, not a Dutch company.
const ORG_COMMA_SUFFIX = String.raw`Inc|Incorporated|LLC|L\.L\.C|Ltd|Limited|GmbH|Corp|Corporation|Co|PLC|plc|LLP`;
const ORG_SUFFIX = String.raw`AG|S\.A|SA|SAS|SARL|S\.r\.l|SpA|BV|B\.V|N\.V|Pty|LP|K\.K|Company|Group|Holdings|Bank|University|Institute|College|Foundation|Association|Partners|Technologies|Labs|Ventures|Capital|Hospital|Clinic|Agency`;
const ORG = new RegExp(
  String.raw`(?<![\p{L}])((?:(?:${WORD}|&|and|of|for|the)[ \t]+){0,4}${WORD})(?:,[ \t]+(${ORG_COMMA_SUFFIX})|[ \t]+(${ORG_COMMA_SUFFIX}|${ORG_SUFFIX}))(?![\p{L}])\.?`,
  "gu",
);
const ORG_OF = new RegExp(
  String.raw`(?<![\p{L}])((?:The[ \t]+)?(?:University|Bank|Institute|College|Museum|Department|Ministry|Council|Government|City|State|Republic|Commonwealth)[ \t]+of[ \t]+(?:the[ \t]+)?${WORD}(?:[ \t]+${WORD}){0,3})`,
  "gu",
);
/** Words that start a sentence or a line without being part of a name. */
const LEADING =
  /^(?:(?:At|From|With|For|To|By|Cc|Dear|Hi|Hello|Thanks|Thank|Team|Welcome|Your|Our|My|This|That|Contact|Email|Ask|Call|Via|And|Of|The|Please|We|I|In|On|Re|Fwd|Fw)[ \t]+)+/;

/** Organisations named in the text, each once, in order. */
export function findOrganizations(text: string): { name: string }[] {
  const out = new Map<string, { name: string }>();
  const add = (raw: string) => {
    const name = raw.replace(/\s+/g, " ").trim();
    const key = name.toLowerCase();
    if (name.length >= 3 && !out.has(key)) out.set(key, { name });
  };
  ORG.lastIndex = 0;
  for (let m = ORG.exec(text); m; m = ORG.exec(text)) {
    const head = m[1]!.replace(LEADING, "").replace(/^(?:&|and|of|for|the)[ \t]+/i, "");
    // "Co" and "Group" alone follow too many ordinary capitalised words; they need a head.
    if (!head || /^(?:and|of|for|the|&)$/i.test(head)) continue;
    const suffix = m[2] ?? m[3]!;
    const dotted = m[0].endsWith(".") && /^(?:Inc|Ltd|Corp|Co|S\.A|B\.V|N\.V|L\.L\.C|S\.r\.l|K\.K)$/.test(suffix);
    add(`${head}${m[2] ? "," : ""} ${suffix}${dotted ? "." : ""}`);
  }
  ORG_OF.lastIndex = 0;
  for (let m = ORG_OF.exec(text); m; m = ORG_OF.exec(text)) add(m[1]!.replace(/[.'’-]+$/, ""));
  return [...out.values()];
}
