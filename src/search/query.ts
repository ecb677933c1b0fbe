/**
 * The Gmail-like search syntax agents use on a mailbox, parsed into free text for PostgreSQL's
 * websearch_to_tsquery plus structured filters. Pure: compiling to SQL happens elsewhere.
 *
 * Positions are 0-based offsets into the query string (UTF-16 code units, as JavaScript indexes
 * it). Token-level errors (unknown operator, missing value, misplaced OR) point at the token,
 * at its "-" when negated, the same place SearchFilter.position names; value errors (invalid
 * value, invalid date) point at the value, at its opening quote when quoted.
 */

export type SearchField = "from" | "to" | "subject" | "label" | "has" | "is" | "risk" | "triage" | "before" | "after";

export interface SearchFilter {
  field: SearchField;
  value: string;
  negated: boolean;
  /** 0-based offset of the token, of its "-" when negated. */
  position: number;
}

export interface ParsedSearch {
  /** The free text for websearch_to_tsquery: words and "quoted phrases", negated ones as -word / -"phrase", joined by single spaces; "" when there is none. */
  text: string;
  /** Positive free-text terms (words and phrases without quotes), for highlighting and for telling whether anything positive is asked. */
  terms: string[];
  filters: SearchFilter[];
}

export class SearchSyntaxError extends Error {
  override name = "SearchSyntaxError";
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

export const SEARCH_OPERATORS: Record<SearchField, string> = {
  from: 'sender address or name contains the text: from:alice@example.com, from:"Jane Doe"',
  to: 'a recipient address or name contains the text: to:ops@example.com, to:"Ops Team"',
  subject: 'subject contains the text: subject:invoice, subject:"quarterly report"',
  label: 'carries the label (by name): label:urgent, label:"follow up"',
  has: "has:attachment: the message has at least one attachment",
  is: "is:inbound, is:outbound, is:archived, is:reviewed, is:unreviewed or is:processed",
  risk: "assessed risk level: risk:low, risk:medium or risk:high",
  triage: "triage label: triage:action_required, reply_needed, fyi, newsletter, notification or spam",
  before: "received before the start of that UTC day (YYYY-MM-DD or YYYY/MM/DD), or before an ISO timestamp with a zone",
  after: "received after that UTC day (YYYY-MM-DD or YYYY/MM/DD), or at or after an ISO timestamp with a zone",
};

export const MAX_QUERY_LENGTH = 1000;
/** Free-text words and phrases plus filters; each becomes SQL, so a bound keeps plans cheap. */
export const MAX_QUERY_ITEMS = 32;

const identity = (values: string[]) => new Map(values.map((v) => [v, v]));
/** Accepted spellings of each enumerated value, mapped to the canonical value. */
const ENUM_VALUES: Partial<Record<SearchField, ReadonlyMap<string, string>>> = {
  has: new Map([["attachment", "attachment"], ["attachments", "attachment"]]),
  is: identity(["inbound", "outbound", "archived", "reviewed", "unreviewed", "processed"]),
  risk: identity(["low", "medium", "high"]),
  triage: identity(["action_required", "reply_needed", "fyi", "newsletter", "notification", "spam"]),
};

const DAY_MS = 86_400_000;
// Control characters separate tokens: a NUL would make PostgreSQL reject the whole statement.
const SPACE_RE = /[\s\p{Cc}]/u;
const SPACES_RE = /[\s\p{Cc}]+/gu;
const SEARCHABLE_RE = /[\p{L}\p{N}]/u;
/** OR as websearch_to_tsquery reads it: "or" followed by no letter or digit ("OR", "or,"). */
const OR_RE = /^or[^\p{L}\p{N}]*$/iu;
// websearch_to_tsquery splits a bare word at these into an AND of parts, where the document
// has adjacent lexemes (10:30, URLs), and reads "or's" as OR; quoted, a word is a phrase.
const MISREAD_BARE_RE = /[!&:<|]|^or[^\p{L}\p{N}]/iu;
const OPERATOR_RE = /^([A-Za-z]+):/;

type Token =
  | { kind: "word"; word: string; negated: boolean; position: number }
  | { kind: "phrase"; phrase: string; negated: boolean; position: number }
  | { kind: "filter"; filter: SearchFilter };

type Element = { kind: "text"; rendered: string; term: string | null; position: number } | { kind: "or"; rendered: string; position: number } | { kind: "filter"; filter: SearchFilter };

export function parseSearchQuery(input: string): ParsedSearch {
  if (input.length > MAX_QUERY_LENGTH) throw new SearchSyntaxError(`query is longer than ${MAX_QUERY_LENGTH} characters`, MAX_QUERY_LENGTH);
  if (input.replace(SPACES_RE, "") === "") throw new SearchSyntaxError("query is empty", 0);

  const elements: Element[] = [];
  let items = 0;
  for (const token of tokenize(input)) {
    const element = toElement(token);
    if (element === null) continue;
    if (element.kind !== "or" && ++items > MAX_QUERY_ITEMS) {
      throw new SearchSyntaxError(`query has more than ${MAX_QUERY_ITEMS} words, phrases and filters`, positionOf(element));
    }
    elements.push(element);
  }
  if (elements.length === 0) throw new SearchSyntaxError("query has no words, phrases or filters to search for", 0);
  checkOrPlacement(elements);

  const text: string[] = [];
  const terms: string[] = [];
  const filters: SearchFilter[] = [];
  for (const e of elements) {
    if (e.kind === "filter") filters.push(e.filter);
    else {
      text.push(e.rendered);
      if (e.kind === "text" && e.term !== null) terms.push(e.term);
    }
  }
  return { text: text.join(" "), terms, filters };
}

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  const at = (i: number) => input[i] ?? "";
  let i = 0;
  while (i < input.length) {
    if (SPACE_RE.test(at(i))) {
      i++;
      continue;
    }
    const position = i;
    const negated = at(i) === "-";
    if (negated) {
      i++;
      if (i >= input.length || SPACE_RE.test(at(i))) throw new SearchSyntaxError("'-' must be directly followed by a word, phrase or operator", position);
    }
    if (at(i) === '"') {
      const quoted = readQuoted(input, i);
      tokens.push({ kind: "phrase", phrase: quoted.text, negated, position });
      i = quoted.end;
      continue;
    }
    const bareStart = i;
    while (i < input.length && !SPACE_RE.test(at(i)) && at(i) !== '"') {
      if (at(i) === "(" || at(i) === ")") throw new SearchSyntaxError("parentheses are not supported", i);
      i++;
    }
    const bare = classifyBare(input, bareStart, i, negated, position);
    tokens.push(bare.token);
    i = bare.end;
  }
  return tokens;
}

/** A run of non-space, non-quote characters from `start` to `end`: a word or an operator (whose quoted value may follow). */
function classifyBare(input: string, start: number, end: number, negated: boolean, position: number): { token: Token; end: number } {
  const bare = input.slice(start, end);
  const word = (text: string) => ({ token: { kind: "word", word: text, negated, position } as const, end });
  const op = OPERATOR_RE.exec(bare);
  const typedName = op?.[1];
  if (op === null || typedName === undefined) return word(bare);
  const name = typedName.toLowerCase();
  const rest = bare.slice(op[0].length);
  const valueQuoted = rest === "" && input[end] === '"';
  if (isSearchField(name)) {
    const quoted = valueQuoted ? readQuoted(input, end) : null;
    const value = quoted === null ? rest : quoted.text.trim();
    if (value === "") throw new SearchSyntaxError(`operator '${name}' needs a value`, position);
    const valueAt = quoted === null ? start + op[0].length : end;
    const filter: SearchFilter = { field: name, value: normaliseValue(name, value, valueAt), negated, position };
    return { token: { kind: "filter", filter }, end: quoted?.end ?? end };
  }
  if (isUrlish(name, rest)) return word(bare);
  // "Re:" and "Fwd:" are how subjects are written, not operators.
  if (rest === "" && !valueQuoted) return word(typedName);
  throw new SearchSyntaxError(`unknown operator '${typedName}'`, position);
}

/** The text between the quote at `open` and the next quote; a quote has no escapes, as in websearch_to_tsquery. */
function readQuoted(input: string, open: number): { text: string; end: number } {
  const close = input.indexOf('"', open + 1);
  if (close === -1) throw new SearchSyntaxError("unterminated quote", open);
  return { text: input.slice(open + 1, close).replace(/\p{Cc}/gu, " "), end: close + 1 };
}

const isSearchField = (name: string): name is SearchField => Object.hasOwn(SEARCH_OPERATORS, name);

function isUrlish(name: string, rest: string): boolean {
  return rest.startsWith("//") || name === "mailto";
}

function toElement(token: Token): Element | null {
  if (token.kind === "filter") return token;
  if (token.kind === "phrase") {
    const phrase = token.phrase.replace(SPACES_RE, " ").trim();
    if (!SEARCHABLE_RE.test(phrase)) return null;
    return { kind: "text", rendered: `${token.negated ? "-" : ""}"${phrase}"`, term: token.negated ? null : phrase, position: token.position };
  }
  // A dash after the negating one would read as a second negation; it carries no meaning.
  const word = token.word.replace(/^-+/, "");
  if (OR_RE.test(word)) {
    if (token.negated) throw new SearchSyntaxError("OR cannot be negated", token.position);
    return { kind: "or", rendered: word.slice(0, 2), position: token.position };
  }
  if (!SEARCHABLE_RE.test(word)) return null;
  const bare = MISREAD_BARE_RE.test(word) ? `"${word}"` : word;
  return { kind: "text", rendered: `${token.negated ? "-" : ""}${bare}`, term: token.negated ? null : word, position: token.position };
}

const positionOf = (e: Element) => (e.kind === "filter" ? e.filter.position : e.position);

/** Filters always all apply, so an OR next to one would silently mean AND: refuse it. */
function checkOrPlacement(elements: Element[]): void {
  elements.forEach((e, i) => {
    if (e.kind !== "or") return;
    if (elements[i - 1]?.kind !== "text" || elements[i + 1]?.kind !== "text") {
      throw new SearchSyntaxError("OR must stand between two words or phrases (filters cannot be OR-ed)", e.position);
    }
  });
}

function normaliseValue(field: SearchField, value: string, valueAt: number): string {
  if (field === "before" || field === "after") return parseDateBound(field, value, valueAt);
  const allowed = ENUM_VALUES[field];
  if (allowed === undefined) return value;
  // Accept "reply-needed" for "reply_needed": the hyphen is how people type it.
  const canonical = allowed.get(value.toLowerCase().replaceAll("-", "_"));
  if (canonical === undefined) {
    const choices = [...new Set(allowed.values())].join(", ");
    throw new SearchSyntaxError(`invalid value '${value}' for ${field}: use one of ${choices}`, valueAt);
  }
  return canonical;
}

const DATE_RE = /^(\d{4})([-/])(\d{1,2})\2(\d{1,2})$/;
const TIMESTAMP_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * A day bound as an ISO instant, for `created < before` and `created >= after`: a day's
 * "before" is its first instant, its "after" the first instant of the next day. A timestamp
 * is an instant already and is used as given (to the millisecond).
 */
function parseDateBound(field: "before" | "after", value: string, valueAt: number): string {
  const fail = (): never => {
    throw new SearchSyntaxError(`invalid date '${value}' for ${field}: use YYYY-MM-DD, YYYY/MM/DD or an ISO timestamp with a zone, like 2026-03-05T14:30:00Z`, valueAt);
  };
  const n = (s: string | undefined) => Number(s ?? "0");
  const date = DATE_RE.exec(value);
  if (date !== null) {
    const start = dayStart(n(date[1]), n(date[3]), n(date[4])) ?? fail();
    const ms = field === "before" ? start : start + DAY_MS;
    return ms <= LATEST_MS ? new Date(ms).toISOString() : fail();
  }
  const ts = TIMESTAMP_RE.exec(value);
  if (ts === null) return fail();
  const [hour, minute, second, offsetHours, offsetMinutes] = [n(ts[4]), n(ts[5]), n(ts[6]), n(ts[10]), n(ts[11])];
  const start = dayStart(n(ts[1]), n(ts[2]), n(ts[3]));
  if (start === null || hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return fail();
  const millis = Number((ts[7] ?? "").padEnd(3, "0").slice(0, 3));
  const offset = (ts[9] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const ms = start + ((hour * 60 + minute) * 60 + second) * 1000 + millis - offset;
  return ms <= LATEST_MS ? new Date(ms).toISOString() : fail();
}

/** Milliseconds at the start of that UTC day, or null when there is no such day (2026-02-30). */
function dayStart(year: number, month: number, day: number): number | null {
  if (year < 1000 || month < 1 || month > 12 || day < 1) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day > daysInMonth ? null : Date.UTC(year, month - 1, day);
}
