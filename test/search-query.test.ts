/**
 * The search syntax as pure parsing: every operator and its negation, quoting, free text and
 * OR, and each error with its exact position. One block feeds the produced text to a real
 * websearch_to_tsquery (PGlite), since what that function reads is the contract of `text`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PGlite } from "@electric-sql/pglite";
import { MAX_QUERY_ITEMS, MAX_QUERY_LENGTH, parseSearchQuery, SEARCH_OPERATORS, type SearchField, type SearchFilter, SearchSyntaxError } from "../src/search/query.ts";

function errorOf(query: string): { message: string; position: number } {
  try {
    parseSearchQuery(query);
  } catch (e) {
    if (e instanceof SearchSyntaxError) return { message: e.message, position: e.position };
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(query)} to be refused`);
}

const filter = (field: SearchField, value: string, position: number, negated = false) => ({ field, value, negated, position });
function onlyFilter(query: string): SearchFilter {
  const { text, terms, filters } = parseSearchQuery(query);
  expect({ text, terms, count: filters.length }).toEqual({ text: "", terms: [], count: 1 });
  const [only] = filters;
  if (only === undefined) throw new Error("unreachable");
  return only;
}

describe("free text", () => {
  test("words are kept as typed and joined by single spaces", () => {
    expect(parseSearchQuery("  Quarterly   invoice\tPDF \n")).toEqual({ text: "Quarterly invoice PDF", terms: ["Quarterly", "invoice", "PDF"], filters: [] });
  });

  test("phrases keep their quotes in the text and lose them in the terms; inner whitespace collapses", () => {
    expect(parseSearchQuery('"Quarterly  Report" due')).toEqual({ text: '"Quarterly Report" due', terms: ["Quarterly Report", "due"], filters: [] });
  });

  test("negated words and phrases are in the text with a leading - and not in the terms", () => {
    expect(parseSearchQuery('invoice -draft -"out of office"')).toEqual({ text: 'invoice -draft -"out of office"', terms: ["invoice"], filters: [] });
  });

  test("a query with only negations has no terms", () => {
    expect(parseSearchQuery("-spam -unsubscribe")).toEqual({ text: "-spam -unsubscribe", terms: [], filters: [] });
  });

  test("OR between words and phrases is passed through as typed", () => {
    expect(parseSearchQuery("cats OR dogs")).toEqual({ text: "cats OR dogs", terms: ["cats", "dogs"], filters: [] });
    expect(parseSearchQuery('cats or "guinea pigs" Or -birds')).toEqual({ text: 'cats or "guinea pigs" Or -birds', terms: ["cats", "guinea pigs"], filters: [] });
  });

  test("OR with trailing punctuation is OR, as websearch_to_tsquery reads it", () => {
    expect(parseSearchQuery("cats OR, dogs").text).toBe("cats OR dogs");
  });

  test("words merely starting with or are words", () => {
    expect(parseSearchQuery("orange order").terms).toEqual(["orange", "order"]);
  });

  test("a quoted phrase or is a phrase, not OR", () => {
    expect(parseSearchQuery('cats "or" from:bob')).toMatchObject({ text: 'cats "or"', terms: ["cats", "or"] });
  });

  test("URLs and mailto: are free text, quoted so they stay one phrase", () => {
    expect(parseSearchQuery("see https://example.com/a?b=1 http://x.test mailto:bob@example.com")).toEqual({
      text: 'see "https://example.com/a?b=1" "http://x.test" "mailto:bob@example.com"',
      terms: ["see", "https://example.com/a?b=1", "http://x.test", "mailto:bob@example.com"],
      filters: [],
    });
  });

  test("any letters followed by // read as a URL scheme", () => {
    expect(parseSearchQuery("ftp://files.example.com").terms).toEqual(["ftp://files.example.com"]);
    expect(parseSearchQuery("MAILTO:x@y.test").terms).toEqual(["MAILTO:x@y.test"]);
  });

  test("times and other prefixes that are not letters are free text", () => {
    expect(parseSearchQuery("meet at 10:30 v2:beta")).toEqual({ text: 'meet at "10:30" "v2:beta"', terms: ["meet", "at", "10:30", "v2:beta"], filters: [] });
  });

  test("an unknown name with no value is free text with the colon dropped", () => {
    expect(parseSearchQuery("Re: Fwd: budget")).toEqual({ text: "Re Fwd budget", terms: ["Re", "Fwd", "budget"], filters: [] });
    expect(parseSearchQuery("-fwd:").text).toBe("-fwd");
  });

  test("characters websearch_to_tsquery treats as operators make the word a phrase", () => {
    expect(parseSearchQuery("a<->b x|y p&q !bang").text).toBe('"a<->b" "x|y" "p&q" "!bang"');
  });

  test("words without a letter or digit are dropped; hyphens, apostrophes and symbols inside words stay", () => {
    expect(parseSearchQuery("& e-mail — O'Reilly c++ $100 ... #tag")).toEqual({
      text: "e-mail O'Reilly c++ $100 #tag",
      terms: ["e-mail", "O'Reilly", "c++", "$100", "#tag"],
      filters: [],
    });
    expect(parseSearchQuery('hello "..." ""').text).toBe("hello");
  });

  test("extra dashes after the negating one are dropped", () => {
    expect(parseSearchQuery("--draft").text).toBe("-draft");
  });

  test("a quote ends a bare word and begins a phrase", () => {
    expect(parseSearchQuery('foo"bar baz"qux')).toEqual({ text: 'foo "bar baz" qux', terms: ["foo", "bar baz", "qux"], filters: [] });
  });

  test("non-ASCII words are kept", () => {
    expect(parseSearchQuery('Grüße "naïve résumé" 東京').terms).toEqual(["Grüße", "naïve résumé", "東京"]);
  });

  test("control characters separate tokens and never reach the output", () => {
    expect(parseSearchQuery("a\u0000b \"c\u0007d\" subject:\"x\u0000y\"")).toEqual({
      text: 'a b "c d"',
      terms: ["a", "b", "c d"],
      filters: [filter("subject", "x y", 10)],
    });
  });

  test("parentheses inside quotes are text", () => {
    expect(parseSearchQuery('"budget (draft)" subject:"Q1 (final)"')).toEqual({
      text: '"budget (draft)"',
      terms: ["budget (draft)"],
      filters: [filter("subject", "Q1 (final)", 17)],
    });
  });
});

describe("operators", () => {
  test("from and to take an address or a name, quoted when it has spaces", () => {
    expect(onlyFilter("from:alice@example.com")).toEqual(filter("from", "alice@example.com", 0));
    expect(onlyFilter('from:"Jane Doe"')).toEqual(filter("from", "Jane Doe", 0));
    expect(onlyFilter("to:ops@example.com")).toEqual(filter("to", "ops@example.com", 0));
    expect(onlyFilter('to:"  Ops Team "')).toEqual(filter("to", "Ops Team", 0));
  });

  test("subject and label keep the value as typed", () => {
    expect(onlyFilter("subject:Invoice")).toEqual(filter("subject", "Invoice", 0));
    expect(onlyFilter('subject:"Quarterly Report"')).toEqual(filter("subject", "Quarterly Report", 0));
    expect(onlyFilter("label:Urgent")).toEqual(filter("label", "Urgent", 0));
    expect(onlyFilter('label:"Follow up"')).toEqual(filter("label", "Follow up", 0));
  });

  test("an unquoted value runs to the next space and may contain colons", () => {
    expect(onlyFilter("subject:re:budget")).toEqual(filter("subject", "re:budget", 0));
    expect(onlyFilter("from:-bob")).toEqual(filter("from", "-bob", 0));
  });

  test("has:attachment, also spelled attachments, in any case", () => {
    expect(onlyFilter("has:attachment")).toEqual(filter("has", "attachment", 0));
    expect(onlyFilter("has:Attachments")).toEqual(filter("has", "attachment", 0));
  });

  test.each(["inbound", "outbound", "archived", "reviewed", "unreviewed", "processed"])("is:%s", (value) => {
    expect(onlyFilter(`is:${value.toUpperCase()}`)).toEqual(filter("is", value, 0));
  });

  test.each(["low", "medium", "high"])("risk:%s", (value) => {
    expect(onlyFilter(`risk:${value}`)).toEqual(filter("risk", value, 0));
  });

  test.each(["action_required", "reply_needed", "fyi", "newsletter", "notification", "spam"])("triage:%s", (value) => {
    expect(onlyFilter(`triage:${value}`)).toEqual(filter("triage", value, 0));
  });

  test("triage values accept hyphens and any case", () => {
    expect(onlyFilter("triage:Reply-Needed")).toEqual(filter("triage", "reply_needed", 0));
  });

  test("operator names are case-insensitive", () => {
    expect(parseSearchQuery('FROM:bob Subject:"Hi" IS:inbound').filters).toEqual([filter("from", "bob", 0), filter("subject", "Hi", 9), filter("is", "inbound", 22)]);
  });

  test("values may be quoted for every operator", () => {
    expect(parseSearchQuery('risk:"high" before:"2026-03-05"').filters).toEqual([filter("risk", "high", 0), filter("before", "2026-03-05T00:00:00.000Z", 12)]);
  });

  test.each(Object.keys(SEARCH_OPERATORS) as SearchField[])("-%s: negates with the position of the dash", (field) => {
    const value = { from: "bob", to: "ops", subject: "hi", label: "x", has: "attachment", is: "archived", risk: "high", triage: "spam", before: "2026-01-01T00:00:00.000Z", after: "2026-01-01T00:00:00.000Z" }[field];
    const parsed = parseSearchQuery(`invoice -${field}:${value}`);
    expect(parsed.filters).toEqual([filter(field, value, 8, true)]);
    expect(parsed.text).toBe("invoice");
  });

  test("a negated quoted value", () => {
    expect(parseSearchQuery('x -from:"Jane Doe" y')).toEqual({ text: "x y", terms: ["x", "y"], filters: [filter("from", "Jane Doe", 2, true)] });
  });

  test("filters mix with free text in any order and the same operator may repeat", () => {
    expect(parseSearchQuery("from:alice budget label:a -label:b report")).toEqual({
      text: "budget report",
      terms: ["budget", "report"],
      filters: [filter("from", "alice", 0), filter("label", "a", 18), filter("label", "b", 26, true)],
    });
  });

  test("every operator has a one-line description", () => {
    expect(Object.keys(SEARCH_OPERATORS).sort()).toEqual(["after", "before", "from", "has", "is", "label", "risk", "subject", "to", "triage"]);
    for (const description of Object.values(SEARCH_OPERATORS)) expect(description).not.toContain("\n");
  });
});

describe("dates", () => {
  test("before is the start of that UTC day; after is the start of the next", () => {
    expect(onlyFilter("before:2026-03-05").value).toBe("2026-03-05T00:00:00.000Z");
    expect(onlyFilter("after:2026-03-05").value).toBe("2026-03-06T00:00:00.000Z");
  });

  test("YYYY/MM/DD and single-digit months and days", () => {
    expect(onlyFilter("before:2026/03/05").value).toBe("2026-03-05T00:00:00.000Z");
    expect(onlyFilter("after:2026/3/5").value).toBe("2026-03-06T00:00:00.000Z");
  });

  test("after rolls over months, years and leap days", () => {
    expect(onlyFilter("after:2026-02-28").value).toBe("2026-03-01T00:00:00.000Z");
    expect(onlyFilter("after:2028-02-28").value).toBe("2028-02-29T00:00:00.000Z");
    expect(onlyFilter("after:2026-12-31").value).toBe("2027-01-01T00:00:00.000Z");
  });

  test("a timestamp with a zone is used as given, for before and after alike", () => {
    expect(onlyFilter("before:2026-03-05T14:30:00Z").value).toBe("2026-03-05T14:30:00.000Z");
    expect(onlyFilter("after:2026-03-05T14:30:00Z").value).toBe("2026-03-05T14:30:00.000Z");
    expect(onlyFilter("after:2026-03-05T01:00:00+02:00").value).toBe("2026-03-04T23:00:00.000Z");
    expect(onlyFilter("after:2026-03-05T10:00-0530").value).toBe("2026-03-05T15:30:00.000Z");
    expect(onlyFilter("before:2026-03-05t10:00:00.5z").value).toBe("2026-03-05T10:00:00.500Z");
    expect(onlyFilter('before:"2026-03-05 10:00:00Z"').value).toBe("2026-03-05T10:00:00.000Z");
  });

  test("fractions finer than a millisecond are truncated", () => {
    expect(onlyFilter("after:2026-03-05T10:00:00.123456+00:00").value).toBe("2026-03-05T10:00:00.123Z");
  });

  test.each([
    ["before:2026-02-30", 7],
    ["after:2026-02-29", 6],
    ["after:2026-13-01", 6],
    ["after:2026-00-10", 6],
    ["before:2026-04-31", 7],
    ["before:yesterday", 7],
    ["before:2026-03", 7],
    ["before:26-03-05", 7],
    ["before:2026-03/05", 7],
    ["before:2026-03-05T10:00:00", 7],
    ["before:2026-03-05T24:00:00Z", 7],
    ["before:2026-03-05T10:60Z", 7],
    ["before:2026-03-05T10:00:00+25:00", 7],
    ["after:9999-12-31", 6],
    ["before:0999-01-01", 7],
  ])("%s is an invalid date at the value", (query, position) => {
    const error = errorOf(query);
    expect(error.position).toBe(position);
    expect(error.message).toStartWith(`invalid date '${query.slice(position)}' for ${query.slice(0, position - 1)}: use YYYY-MM-DD`);
  });

  test("an invalid quoted date points at the opening quote", () => {
    expect(errorOf('x before:"2026-02-30"')).toEqual({ message: expect.stringContaining("invalid date '2026-02-30'"), position: 9 });
  });
});

describe("errors", () => {
  test("an empty or blank query", () => {
    expect(errorOf("")).toEqual({ message: "query is empty", position: 0 });
    expect(errorOf(" \t\n ")).toEqual({ message: "query is empty", position: 0 });
  });

  test("a query of nothing searchable", () => {
    expect(errorOf("& ... \"\"")).toEqual({ message: "query has no words, phrases or filters to search for", position: 0 });
  });

  test("an unknown operator, at the token", () => {
    expect(errorOf("invoice form:bob")).toEqual({ message: "unknown operator 'form'", position: 8 });
    expect(errorOf("invoice -Form:bob")).toEqual({ message: "unknown operator 'Form'", position: 8 });
    expect(errorOf('x re:"budget"')).toEqual({ message: "unknown operator 're'", position: 2 });
    expect(errorOf("http:example.com")).toEqual({ message: "unknown operator 'http'", position: 0 });
  });

  test("a known operator without a value", () => {
    expect(errorOf("invoice from:")).toEqual({ message: "operator 'from' needs a value", position: 8 });
    expect(errorOf("from: bob")).toEqual({ message: "operator 'from' needs a value", position: 0 });
    expect(errorOf('a -Subject:"  "')).toEqual({ message: "operator 'subject' needs a value", position: 2 });
  });

  test.each([
    ["has:pdf", "invalid value 'pdf' for has: use one of attachment", 4],
    ["x is:read", "invalid value 'read' for is: use one of inbound, outbound, archived, reviewed, unreviewed, processed", 5],
    ["-risk:critical", "invalid value 'critical' for risk: use one of low, medium, high", 6],
    ['triage:"urgent"', "invalid value 'urgent' for triage: use one of action_required, reply_needed, fyi, newsletter, notification, spam", 7],
    ["is:constructor", "invalid value 'constructor' for is: use one of inbound, outbound, archived, reviewed, unreviewed, processed", 3],
  ])("%s is refused at the value", (query, message, position) => {
    expect(errorOf(query)).toEqual({ message, position });
  });

  test("an unterminated quote, at the quote", () => {
    expect(errorOf('say "hello')).toEqual({ message: "unterminated quote", position: 4 });
    expect(errorOf('x subject:"hello')).toEqual({ message: "unterminated quote", position: 10 });
    expect(errorOf('"a" b"')).toEqual({ message: "unterminated quote", position: 5 });
    expect(errorOf('-"')).toEqual({ message: "unterminated quote", position: 1 });
  });

  test("parentheses outside quotes, at the parenthesis", () => {
    expect(errorOf("(cats OR dogs)")).toEqual({ message: "parentheses are not supported", position: 0 });
    expect(errorOf("cats dogs)")).toEqual({ message: "parentheses are not supported", position: 9 });
    expect(errorOf("see https://en.wikipedia.org/wiki/Mail_(x)")).toEqual({ message: "parentheses are not supported", position: 39 });
    expect(errorOf("smile :)")).toEqual({ message: "parentheses are not supported", position: 7 });
  });

  test("a lone dash", () => {
    expect(errorOf("invoice - draft")).toEqual({ message: "'-' must be directly followed by a word, phrase or operator", position: 8 });
    expect(errorOf("invoice -")).toEqual({ message: "'-' must be directly followed by a word, phrase or operator", position: 8 });
  });

  test("OR next to a filter, another OR or an end", () => {
    const message = "OR must stand between two words or phrases (filters cannot be OR-ed)";
    expect(errorOf("from:alice OR from:bob")).toEqual({ message, position: 11 });
    expect(errorOf("cats OR from:bob")).toEqual({ message, position: 5 });
    expect(errorOf("OR cats")).toEqual({ message, position: 0 });
    expect(errorOf("cats or")).toEqual({ message, position: 5 });
    expect(errorOf("cats OR OR dogs")).toEqual({ message, position: 5 });
    expect(errorOf("or")).toEqual({ message, position: 0 });
  });

  test("a negated OR", () => {
    expect(errorOf("cats -OR dogs")).toEqual({ message: "OR cannot be negated", position: 5 });
  });

  test(`a query longer than ${MAX_QUERY_LENGTH} characters, at ${MAX_QUERY_LENGTH}`, () => {
    expect(parseSearchQuery("a".repeat(MAX_QUERY_LENGTH)).terms).toHaveLength(1);
    expect(errorOf("a".repeat(MAX_QUERY_LENGTH + 1))).toEqual({ message: `query is longer than ${MAX_QUERY_LENGTH} characters`, position: MAX_QUERY_LENGTH });
    expect(errorOf(" ".repeat(MAX_QUERY_LENGTH + 1)).position).toBe(MAX_QUERY_LENGTH);
  });

  test(`more than ${MAX_QUERY_ITEMS} words, phrases and filters, at the first one too many`, () => {
    const words = Array.from({ length: MAX_QUERY_ITEMS - 1 }, (_, i) => `w${i}`);
    const ok = `${words.join(" ")} from:x`;
    expect(parseSearchQuery(ok).filters).toHaveLength(1);
    // OR and dropped punctuation do not count.
    expect(parseSearchQuery(`${words.join(" OR ")} & from:x`).terms).toHaveLength(MAX_QUERY_ITEMS - 1);
    const over = `${ok} -"one more"`;
    expect(errorOf(over)).toEqual({ message: `query has more than ${MAX_QUERY_ITEMS} words, phrases and filters`, position: ok.length + 1 });
  });

  test("the error is a SearchSyntaxError with a name and a position", () => {
    try {
      parseSearchQuery("form:x");
      throw new Error("unreachable");
    } catch (e) {
      expect(e).toBeInstanceOf(SearchSyntaxError);
      expect(e).toBeInstanceOf(Error);
      expect((e as SearchSyntaxError).name).toBe("SearchSyntaxError");
    }
  });
});

describe("the text as websearch_to_tsquery reads it", () => {
  let db: PGlite;
  beforeAll(async () => {
    db = new PGlite();
  });
  afterAll(() => db.close());

  const tsquery = async (text: string) =>
    (await db.query<{ q: string }>("select websearch_to_tsquery('english', $1)::text as q", [text])).rows[0]?.q;
  const matches = async (document: string, text: string) =>
    (await db.query<{ m: boolean }>("select to_tsvector('english', $1) @@ websearch_to_tsquery('english', $2) as m", [document, text])).rows[0]?.m;

  test("words, phrases, negation and OR", async () => {
    expect(await tsquery(parseSearchQuery('invoices OR receipts -"out of office" from:bob').text)).toBe("'invoic' | 'receipt' & !'offic'");
  });

  test("a URL or a time found in a document is found by the query", async () => {
    const doc = "Join at 10:30 via https://meet.example.com/room-42 or mailto:ops@example.com";
    for (const q of ["https://meet.example.com/room-42", "10:30", "mailto:ops@example.com"]) {
      expect(await matches(doc, parseSearchQuery(q).text)).toBe(true);
    }
    expect(await matches("at 10 then 30", parseSearchQuery("10:30").text)).toBe(false);
  });

  test("operator characters inside a word do not become negation", async () => {
    expect(await tsquery(parseSearchQuery("alpha<->beta").text)).toBe("'alpha' <-> 'beta'");
  });
});
