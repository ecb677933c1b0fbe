import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";

/**
 * Who makes the text part of a message's full-text vector (config SEARCH_VECTOR, README
 * "Search"): the service, in pieces that the statement storing the message joins
 * (text-vector-pieces.ts), or the row's trigger from the whole text; or, `by-length`, the
 * service for texts of at least PIECES_FROM_CHARS characters and the trigger for shorter ones.
 */
export type TextVectorBy = "service" | "database" | "by-length";

/**
 * Where pieces start to pay on PostgreSQL. Pieces save the database more the longer the text
 * (its parser and stemmer run per word; the pieces' join and the service's split cost a fixed
 * part per message and less per word), and cost the parser thread more. Measured on two
 * shared cores with prose whose texts differ (bench/smtp-ingest.ts --message small --text-kib,
 * paired rounds, README "Search"): with the pieces as they are since migration 0022, at 4 KiB
 * the two ways cost the same CPU per message (4.87 ms) and ingested as much; at 8 KiB the
 * pieces took 0.76 ms off the database for 0.53 ms more of the service. (Before that
 * migration, whose function checked every vector, and before the worker's pieces got a fifth
 * cheaper, the two met near 10 KiB, the bar then.)
 */
export const PIECES_FROM_CHARS = 4 * 1024;

/** The shortest text `by` makes pieces of: 0 for every text, Infinity for none. */
export function piecesFromChars(by: TextVectorBy): number {
  return by === "service" ? 0 : by === "by-length" ? PIECES_FROM_CHARS : Infinity;
}

/**
 * Whether this database's `english` configuration reads a word of digits as the stock one
 * does: a `uint` token, through the `simple` dictionary, whose lexeme is the word itself. Read
 * once per database by a probe. Until it has answered (and for good if it says otherwise, or
 * for now if it fails), numbers are made by the database like words not known yet, so a changed configuration
 * is honoured and no text waits for the probe.
 */
export interface NumbersRule {
  /** The probe's answer; undefined until it has answered. */
  plain: boolean | undefined;
  answered: Promise<boolean>;
}
const numbersRules = new WeakMap<Db, NumbersRule>();

/** The rule of `db`, probed on first use (again after a failed probe). */
export function numbersRule(db: Db): NumbersRule {
  let rule = numbersRules.get(db);
  if (rule === undefined) {
    const made: NumbersRule = { plain: undefined, answered: probeNumbers(db) };
    made.answered.then(
      (plain) => (made.plain = plain),
      () => numbersRules.delete(db),
    );
    numbersRules.set(db, (rule = made));
  }
  return rule;
}

/** Numbers of several shapes (a zero, leading zeros, more digits than any integer type holds), each its own lexeme at its own position. */
const PROBE = ["0", "007", "12345678901234567890123456789", "2024"];
async function probeNumbers(db: Db): Promise<boolean> {
  const rows = rowsOf<{ lexeme: string; positions: string }>(
    await db.execute(sql`select lexeme, array_to_string(positions, ',') as positions from unnest(to_tsvector('english', ${PROBE.join(" ")}::text))`),
  );
  return rows.length === PROBE.length && PROBE.every((word, i) => rows.some((r) => r.lexeme === word && r.positions === String(i + 1)));
}
