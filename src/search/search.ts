import { getTableColumns, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";
import { messages, type MessageRow } from "../../db/schema/index.ts";
import { AppError } from "../errors.ts";
import { filterCondition } from "./compile.ts";
import { parseSearchQuery, SearchSyntaxError, type ParsedSearch } from "./query.ts";
import { messageVector, SEARCH_CONFIG } from "./vectors.ts";

export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 100;

/** Relevance halves for every 30 days of age: among equally good matches the newer wins. */
const FRESHNESS_DAYS = 30;
/** Up to `rankAll` matches are ranked all together; a query that matches more ranks only its newest `rankNewest`. */
export interface RankWindows {
  rankAll: number;
  rankNewest: number;
}
export const DEFAULT_WINDOWS: RankWindows = { rankAll: 1000, rankNewest: 500 };
/** Characters of text the highlighter reads; the index has read all of it already. */
const HIGHLIGHT_CHARS = 20_000;
// Sentinels the highlighter wraps matches in; stripped from the text first, so they are ours.
const OPEN = "\u0001";
const CLOSE = "\u0002";

export interface SearchHit {
  row: MessageRow;
  rank: number;
  highlight: { subject: string; text: string };
}

export interface SearchResult {
  query: ParsedSearch;
  hits: SearchHit[];
  hasMore: boolean;
}

/** Parses the query syntax; a syntax error is a 400 that says where. */
export function parseOrReject(input: string): ParsedSearch {
  try {
    return parseSearchQuery(input);
  } catch (err) {
    if (!(err instanceof SearchSyntaxError)) throw err;
    throw new AppError("validation_error", `query: ${err.message} (at position ${err.position})`, {
      position: err.position,
      fields: [{ path: "body.query", message: `${err.message} (at position ${err.position})` }],
    });
  }
}

/**
 * Full-text search over one mailbox: the free text through websearch_to_tsquery and the GIN
 * index, operators as conditions beside it. Ranked by text relevance (subject above
 * addresses and attachment names above the body) weighed by freshness; then highlighted,
 * only the page it returns.
 */
export async function searchMessages(db: Db, mailboxId: string, input: string, limit: number, windows: RankWindows = DEFAULT_WINDOWS): Promise<SearchResult> {
  const query = parseOrReject(input);
  const text = query.text && (await hasLexemes(db, query.text)) ? query.text : "";
  if (!text && query.filters.length === 0) {
    throw new AppError("validation_error", "query: has no words to search for (only stop words such as 'the' or 'and')", {
      position: 0,
      fields: [{ path: "body.query", message: "has no words to search for" }],
    });
  }
  const conditions: SQL[] = [sql`"messages"."mailbox_id" = ${mailboxId}`, ...query.filters.map(filterCondition)];
  const ranked = text ? await rankedMatches(db, conditions, text, limit + 1, windows) : await newestMatches(db, conditions, limit + 1);
  const page = ranked.slice(0, limit);
  const rows = await highlighted(db, page.map((r) => r.id), text);
  const hits = page.flatMap((r) => {
    const found = rows.get(r.id);
    return found ? [{ row: found.row, rank: Math.round(Number(r.rank) * 1e6) / 1e6, highlight: found.highlight }] : [];
  });
  return { query, hits, hasMore: ranked.length > limit };
}

const byRank = sql.raw(`order by rank desc, "messages"."created_at" desc, "messages"."id" desc`);
const newestFirst = sql.raw(`order by "messages"."created_at" desc, "messages"."id" desc`);
const tsQuery = (text: string) => sql`(select websearch_to_tsquery(${SEARCH_CONFIG}, ${text}) as q) sq`;

/** Operators only: the newest matches, through the (mailbox, created_at) index. */
async function newestMatches(db: Db, conditions: SQL[], n: number) {
  return rowsOf<{ id: string; rank: number }>(
    await db.execute(sql`select "messages"."id" as id, 0 as rank from ${messages} where ${sql.join(conditions, sql` and `)} ${newestFirst} limit ${n}`),
  );
}

/**
 * The best `n` matches of a text query. Ranking reads each candidate's whole search vector
 * (detoasted), which costs per match, and a query of common words can match most of a
 * mailbox. So a cheap probe counts matches up to `rankAll` first. Up to that many are all
 * ranked, exactly. Beyond it, the `rankNewest` newest matches are ranked: they are picked
 * from the GIN bitmap by date alone, which reads no vectors (the planner is kept from a
 * sequential scan or a newest-first index walk, both of which would read one per row).
 */
async function rankedMatches(db: Db, conditions: SQL[], text: string, n: number, windows: RankWindows) {
  const where = sql.join([...conditions, sql`${messageVector} @@ sq.q`], sql` and `);
  const probe = rowsOf<{ id: string }>(await db.execute(sql`select "messages"."id" as id from ${messages} cross join ${tsQuery(text)} where ${where} limit ${windows.rankAll + 1}`));
  let ids = probe.map((r) => r.id);
  if (ids.length > windows.rankAll) {
    ids = await db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      await tx.execute(sql`set local enable_indexscan = off`);
      const newest = rowsOf<{ id: string }>(await tx.execute(sql`select "messages"."id" as id from ${messages} cross join ${tsQuery(text)} where ${where} ${newestFirst} limit ${windows.rankNewest}`));
      return newest.map((r) => r.id);
    });
  }
  if (ids.length === 0) return [];
  const score = sql`ts_rank_cd(${messageVector}, sq.q, 32) / (1 + extract(epoch from (now() - "messages"."created_at")) / ${FRESHNESS_DAYS * 86400})`;
  return rowsOf<{ id: string; rank: number | string }>(
    await db.execute(sql`
      select "messages"."id" as id, ${score} as rank from ${messages} cross join ${tsQuery(text)}
      where "messages"."id" in (${sql.join(
        ids.map((id) => sql`${id}::uuid`),
        sql`, `,
      )}) ${byRank} limit ${n}`),
  );
}

/** websearch_to_tsquery drops stop words; a query of nothing else would match nothing. */
async function hasLexemes(db: Db, text: string): Promise<boolean> {
  const [row] = rowsOf<{ n: number }>(await db.execute(sql`select numnode(websearch_to_tsquery(${SEARCH_CONFIG}, ${text})) as n`));
  return Number(row?.n ?? 0) > 0;
}

async function highlighted(db: Db, ids: string[], text: string) {
  const out = new Map<string, { row: MessageRow; highlight: SearchHit["highlight"] }>();
  if (ids.length === 0) return out;
  const options = `StartSel=${OPEN}, StopSel=${CLOSE}, MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "`;
  const body = sql`translate(left(coalesce(${messages.extractedText}, ${messages.textBody}, ''), ${HIGHLIGHT_CHARS}), ${OPEN + CLOSE}, '')`;
  const subject = sql`translate(${messages.subject}, ${OPEN + CLOSE}, '')`;
  const q = sql`websearch_to_tsquery(${SEARCH_CONFIG}, ${text})`;
  const rows = await db
    .select({
      ...getTableColumns(messages),
      hlSubject: text ? sql<string>`ts_headline(${SEARCH_CONFIG}, ${subject}, ${q}, ${`HighlightAll=true, StartSel=${OPEN}, StopSel=${CLOSE}`})` : sql<string>`${messages.subject}`,
      hlText: text ? sql<string>`ts_headline(${SEARCH_CONFIG}, ${body}, ${q}, ${options})` : sql<string>`${messages.snippet}`,
    })
    .from(messages)
    .where(inArray(messages.id, ids));
  for (const { hlSubject, hlText, ...row } of rows) {
    out.set(row.id, { row, highlight: { subject: markup(hlSubject), text: markup(collapse(hlText)) } });
  }
  return out;
}

const collapse = (s: string) => s.replace(/\s+/g, " ").trim();

/** Escapes the text as HTML, then turns the sentinels into <mark>: safe to render as is. */
function markup(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replaceAll(OPEN, "<mark>")
    .replaceAll(CLOSE, "</mark>");
}
