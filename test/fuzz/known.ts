/**
 * Failures the fuzzer already knows about: each entry names an open finding of issue 13 and
 * recognises its inputs. A failing case that one of them recognises is counted as known instead
 * of failing the run. Empty an entry once its fix is merged; a stale entry only hides nothing,
 * since it is consulted after a case has already failed.
 */
export interface FuzzCase {
  surface: string;
  /** "METHOD /pattern" of the route table, or the SMTP command. */
  route: string;
  method: string;
  /** The path with query, exactly as sent. */
  target: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface Known {
  finding: string;
  matches: (c: FuzzCase, status: number) => boolean;
}

// Every finding of issue 13 is fixed; a new one goes here only while its fix is under way.
export const KNOWN: Known[] = [];

export const knownFinding = (c: FuzzCase, status: number): string | undefined => KNOWN.find((k) => k.matches(c, status))?.finding;
