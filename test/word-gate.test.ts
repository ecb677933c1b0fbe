/**
 * The word gate (src/mail/assess/word-gate.ts) may only skip a pattern that cannot match: for
 * every language pattern, on text it matches (sampled from the pattern itself) and on the
 * corpus mail, the gated test answers exactly what the pattern does.
 */
import { describe, expect, test } from "bun:test";
import { EXFILTRATION_PATTERNS, INJECTION_PATTERNS } from "../src/mail/assess/injection.ts";
import { PHISH_PATTERNS } from "../src/mail/assess/signals/phish.ts";
import { CREDENTIAL_PATTERNS, PAYMENT_PATTERNS } from "../src/mail/assess/signals/language.ts";
import { normalizeForMatch } from "../src/mail/assess/text.ts";
import { ACTION_PATTERNS, ASK_PHRASES } from "../src/mail/assess/triage.ts";
import { gateOf, isWithin, leadOf, testGated, testGatedWithin, TextWords, wordHash } from "../src/mail/assess/word-gate.ts";
import { parseInline } from "../src/mail/parse/convert.ts";
import { loadCorpus } from "./corpus/mail.ts";

const PATTERNS: RegExp[] = [...INJECTION_PATTERNS, ...EXFILTRATION_PATTERNS, ...PAYMENT_PATTERNS, ...CREDENTIAL_PATTERNS, ...ACTION_PATTERNS, ...PHISH_PATTERNS, ASK_PHRASES];

// Words no gate asks for, to make a text long enough to be gated (the gate skips short text).
const PAD = "zq ".repeat(200);
const padded = (s: string) => `${PAD}\n${s}\n${PAD}`;

/** What the gate keeps: clauses as sorted word lists, prefixes marked with "…". */
const shape = (re: RegExp) => gateOf(re)?.map((clauses) => clauses.map((c) => [...c.words, ...c.prefixes.map((p) => `${p}…`)].sort()));

describe("the gate read from a pattern", () => {
  test("a clause for each word a match must have", () => {
    expect(shape(/\b(?:new|updated) system (?:prompt|instructions?)\b/)).toEqual([[["new", "updated"], ["system"], ["instruction…", "prompt"]]]);
  });
  test("a word cut short by an optional character or separator is a prefix", () => {
    expect(shape(/\b(?:log ?in|llms?) now\b/)).toEqual([[["llm…", "log…"], ["now"]]]);
    expect(shape(/\burgent(?:ly)? payment\b/)).toEqual([[["urgent…"], ["payment"]]]);
  });
  test("a capturing group is a group", () => {
    expect(shape(/\b(foo|bar) baz\b/)).toEqual([[["bar", "foo"], ["baz"]]]);
  });
  test("an apostrophe or a space ends a word", () => {
    expect(shape(/\bif you(?:'re| are) here\b/)).toEqual([[["if"], ["you…"], ["are", "re"], ["here"]]]);
  });
  test("optional groups and look-behinds add nothing; top-level branches are alternatives", () => {
    expect(shape(/(?<!\bno )\b(?:action|approval) (?:is )?required\b|\bdo it now\b/)).toEqual([
      [["action", "approval"], ["required"]],
      [["do"], ["it"], ["now"]],
    ]);
    expect(gateOf(/\b(?:please )?review\b/)).toEqual([[{ words: ["review"], prefixes: [] }]]);
  });
  test("no gate where no word is certain, or the pattern ignores case or keeps state", () => {
    expect(gateOf(/(?:\d{3}) \d{4}/)).toBeNull();
    expect(gateOf(/\bfoo|bar/)).toBeNull(); // the second branch may match inside a word
    expect(gateOf(/\bwire transfer\b/i)).toBeNull();
    expect(gateOf(/\bwire transfer\b/g)).toBeNull();
  });
  test("most language patterns have a gate", () => {
    expect(PATTERNS.filter((re) => gateOf(re) !== null).length).toBeGreaterThanOrEqual(PATTERNS.length - 16);
  });
});

/** The lead as sorted words, prefixes marked with "…". */
const leadShape = (re: RegExp) => {
  const lead = leadOf(re);
  return lead && [...lead.words, ...lead.prefixes.map((p) => `${p}…`)].sort();
};

describe("the words a match starts with, read from a pattern", () => {
  test("the first word after \\b, or the first words of a required group", () => {
    expect(leadShape(/\b(?:reveal|tell me|show) (?:your )?system prompt\b/)).toEqual(["reveal", "show", "tell"]);
    expect(leadShape(/\bwire (?:transfer|payment)\b/)).toEqual(["wire"]);
  });
  test("look-arounds consume nothing; top-level branches each give their words", () => {
    expect(leadShape(/(?<!\bno )\b(?:action|approval) (?:is )?required\b|\bdo it now\b/)).toEqual(["action", "approval", "do"]);
  });
  test("a word cut short, or followed by what may be a letter, is a prefix", () => {
    expect(leadShape(/\b(?:expires?|deadline)\b/)).toEqual(["deadline", "expire…"]);
    expect(leadShape(/\burgent(?:ly)?\b/)).toEqual(["urgent…"]);
    expect(leadShape(/\b(?:verif|confirm)[a-z]* now\b/)).toEqual(["confirm…", "verif…"]);
    expect(leadShape(/\b(?:go)+ away\b/)).toEqual(["go…"]);
  });
  test("no lead where a match may start elsewhere", () => {
    expect(leadOf(/(?:please )?review\b/)).toBeNull(); // no \b: may start inside a word
    expect(leadOf(/\b(?:please )?review\b/)).toBeNull(); // the first word is optional
    expect(leadOf(/\bfoo|bar\b/)).toBeNull(); // the second branch has no \b
    expect(leadOf(/\b\d+ days\b/)).toBeNull();
    expect(leadOf(/\b(?:wire|)\b transfer/)).toBeNull();
    expect(leadOf(/\bwire transfer\b/i)).toBeNull();
  });
  test("most language patterns have a lead", () => {
    expect(PATTERNS.filter((re) => leadOf(re) !== null).length).toBeGreaterThanOrEqual(PATTERNS.length - 20);
  });
});

describe("a gated test answers what the pattern answers", () => {
  test("when its first words occur many times and only a late one starts a match", () => {
    for (const re of PATTERNS.filter((p) => leadOf(p) !== null)) {
      const random = seeded(re.source.length + 7);
      const lead = leadOf(re)!;
      const decoys = [...lead.words, ...lead.prefixes.map((p) => `${p}zz`)];
      // Every first word, many times, in sentences the pattern does not match; then a match, or not.
      const noise = Array.from({ length: 40 }, (_, i) => `${decoys[i % decoys.length]} zq qz. ${decoys[(i * 7) % decoys.length]}zq`).join(" ");
      for (let n = 0; n < 10; n++) {
        const hit = sample(re.source, random);
        for (const text of [`${noise} ${hit} ${noise}`, `${noise} ${hit}`, noise]) {
          expect({ pattern: re.source, text: text.length, gated: testGated(re, text) }).toEqual({ pattern: re.source, text: text.length, gated: plainTest(re, text) });
        }
      }
    }
  });

  test("on text each pattern matches", () => {
    let checked = 0;
    for (const re of PATTERNS) {
      const random = seeded(re.source.length);
      let matched = 0;
      for (let n = 0; n < 60; n++) {
        const text = padded(sample(re.source, random));
        if (!plainTest(re, text)) continue;
        matched++;
        expect({ pattern: re.source, text: text.slice(PAD.length, -PAD.length), gated: testGated(re, text) }).toEqual({
          pattern: re.source,
          text: text.slice(PAD.length, -PAD.length),
          gated: true,
        });
      }
      if (matched > 0) checked++;
    }
    // The sampler reads the syntax these patterns use: nearly all of them get matching samples.
    expect(checked).toBeGreaterThanOrEqual(PATTERNS.length - 3);
  });

  test("on the end of a longer text, with that text's index: what the pattern answers on the end alone", () => {
    for (const re of PATTERNS) {
      const random = seeded(re.source.length + 11);
      for (let n = 0; n < 8; n++) {
        const hit = sample(re.source, random);
        // The words of a match before the end (the subject) must not count; a match right at its start must.
        const pairs: [string, string][] = [
          [hit, `${PAD}tail`],
          ["subject words", `${hit} ${PAD}`],
          [`${hit} ${hit}`, `${PAD}${hit}`],
          ["no", `${hit}${PAD}`],
        ];
        for (const [before, end] of pairs) {
          const host = `${before}\n${end}`;
          const within = testGatedWithin(re, end, host, before.length + 1);
          expect({ pattern: re.source, before, within }).toEqual({ pattern: re.source, before, within: plainTest(re, end) });
        }
      }
    }
  });

  test("on a part in the middle of a longer text, with that text's index: what the pattern answers on the part alone", () => {
    for (const re of PATTERNS) {
      const random = seeded(re.source.length + 29);
      for (let n = 0; n < 8; n++) {
        const hit = sample(re.source, random);
        // [before, part, after]: matches before or after the part must not count, one at either
        // end of it must; a part that ends with a space may be followed by a word.
        const cases: [string, string, string][] = [
          ["words", `${PAD}tail`, hit],
          [hit, `${PAD}tail`, `${hit} more`],
          ["subject", `${hit} ${PAD}`, "after"],
          ["subject", `${PAD}${hit}`, "after words"],
          [`${hit}\n`, `${PAD}`, `${hit}`],
          ["x", `${PAD}${hit} `, `zqzq${hit}`],
          ["", `${hit} ${PAD}`, `\n${hit}`],
        ];
        for (const [before, part, after] of cases) {
          const sep = before && !/\W$/.test(before) ? "\n" : "";
          const host = `${before}${sep}${part}\n${after}`;
          const offset = before.length + sep.length;
          expect(isWithin(part, host, offset)).toBe(true);
          const within = testGatedWithin(re, part, host, offset);
          expect({ pattern: re.source, before, after, within }).toEqual({ pattern: re.source, before, after, within: plainTest(re, part) });
        }
      }
    }
  });

  test("a part whose word runs on in the longer text, or that is not there: its own index, the pattern's answer", () => {
    const part = `${PAD}please review the fig`;
    const re = ACTION_PATTERNS.find((p) => p.test("please review"))!;
    const host = `x\n${part}ures\nmore`;
    expect(isWithin(part, host, 2)).toBe(false); // "fig" runs on into "figures"
    expect(testGatedWithin(re, part, host, 2)).toBe(true);
    // A pattern that needs the cut word whole: "fig" is a word of the part, not of the host.
    const fig = /\bthe fig\b/;
    expect(testGatedWithin(fig, part, host, 2)).toBe(true);
    expect(isWithin(" x", "ab x", 2)).toBe(true); // starts with a space: the word before ends there
    expect(isWithin("x ", "axy ", 1)).toBe(false); // "x" runs on back into "ax"
    expect(isWithin("x ", "ax yz", 1)).toBe(false);
    expect(isWithin("b ", "a b yz", 2)).toBe(true); // ends with a space: the word after starts there
    expect(isWithin("", "abc", 1)).toBe(false);
    expect(isWithin("bc", "abc", 2)).toBe(false);
  });

  test("on the end of a text it is not the end of, or not after a break between words: the pattern's answer all the same", () => {
    const end = `${PAD}please review the figures`;
    const re = ACTION_PATTERNS.find((p) => p.test("please review"))!;
    expect(testGatedWithin(re, end, `x\n${end}`, 2)).toBe(true);
    expect(testGatedWithin(re, end, `x\n${end}!`, 2)).toBe(true); // not its end
    expect(testGatedWithin(re, end, `xx${end}`, 2)).toBe(true); // a word runs on into it
    expect(testGatedWithin(re, end, `x\n${end}`, 1)).toBe(true); // the wrong offset
    expect(testGatedWithin(re, `${PAD}nothing to do`, `please review\n${PAD}nothing to do`, 14)).toBe(false);
  });

  test("on the corpus mail, matched or not", async () => {
    let matches = 0;
    let skipped = 0;
    for (const m of await loadCorpus()) {
      const mail = await parseInline(m.raw);
      const text = padded(normalizeForMatch(`${mail.subject ?? ""}\n${mail.text ?? ""}\n${mail.html ?? ""}`));
      for (const re of PATTERNS) {
        const plain = plainTest(re, text);
        re.lastIndex = 0;
        expect({ pattern: re.source, id: m.id, gated: testGated(re, text) }).toEqual({ pattern: re.source, id: m.id, gated: plain });
        if (plain) matches++;
        else if (gateOf(re) !== null) skipped++;
      }
    }
    expect(matches).toBeGreaterThan(50);
    expect(skipped).toBeGreaterThan(500);
  });
});

describe("the word index of a text", () => {
  /** What the index stands for: the runs of `\w`, each with where it starts. */
  const reference = (text: string) => {
    const starts = new Map<string, number[]>();
    for (const m of text.matchAll(/[A-Za-z0-9_]+/g)) starts.set(m[0], [...(starts.get(m[0]) ?? []), m.index]);
    return starts;
  };
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

  test("has every run of \\w and nothing else, with every place each starts, whole or by its beginning", () => {
    const random = seeded(99);
    const vocabulary = ["a", "ab", "abc", "urgent", "urgently", "Urgent", "pay_now", "x1", "42", "4242", "_", "wire", "wired", "caf", "über", "naïve"];
    const separators = [" ", "  ", ".", ", ", "\n", "é", "—", "'", "-", "\t", "ü"];
    for (let n = 0; n < 300; n++) {
      let text = "";
      const length = Math.floor(random() * 60);
      for (let i = 0; i < length; i++) {
        text += vocabulary[Math.floor(random() * vocabulary.length)];
        if (random() < 0.85) text += separators[Math.floor(random() * separators.length)];
      }
      const index = new TextWords(text);
      const runs = reference(text);
      const asked = new Set([...vocabulary, ...runs.keys(), "", "ur", "pay now", "wire ", "über", "caf\u00e9", "zz"]);
      for (const word of asked) {
        expect({ text, word, has: index.has(word) }).toEqual({ text, word, has: runs.has(word) });
        expect({ text, word, starts: sorted(index.startsOf({ words: [word], prefixes: [] })) }).toEqual({ text, word, starts: runs.get(word) ?? [] });
        // A prefix: every run that begins with it, and a run taken whole is not taken again.
        const begun = [...runs].filter(([w]) => w.startsWith(word));
        expect({ text, word, starts: sorted(index.startsOf({ words: [], prefixes: [word] })) }).toEqual({ text, word, starts: sorted(begun.flatMap(([, at]) => at)) });
        expect({ text, word, starts: sorted(index.startsOf({ words: [word], prefixes: [word] })) }).toEqual({ text, word, starts: sorted(begun.flatMap(([, at]) => at)) });
        expect({ text, word, admits: index.admits([[{ words: [], prefixes: [word] }]]) }).toEqual({ text, word, admits: begun.length > 0 });
      }
    }
  });

  test("indexes made one after another, long and short, each keep their own words", () => {
    // The constructor works in arrays kept for the next index (up to a size); a longer text gets its own.
    const random = seeded(5);
    const vocabulary = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}x`);
    const textOf = (chars: number) => {
      let text = "";
      while (text.length < chars) text += `${vocabulary[Math.floor(random() * vocabulary.length)]}${random() < 0.1 ? ".\n" : " "}`;
      return text;
    };
    const texts = [textOf(300_000), textOf(40), textOf(60_000), textOf(200_000), textOf(5_000)];
    const indexes = texts.map((t) => new TextWords(t));
    texts.forEach((text, k) => {
      const runs = reference(text);
      for (const word of [...vocabulary.slice(0, 40), "zz", "w1"]) {
        expect({ k, word, starts: sorted(indexes[k]!.startsOf({ words: [word], prefixes: [] })) }).toEqual({ k, word, starts: runs.get(word) ?? [] });
      }
      expect(indexes[k]!.has(vocabulary[7]!)).toBe(runs.has(vocabulary[7]!));
    });
  });

  test("tells apart two words filed under the same hash", () => {
    // Two different words with one hash, found by trying made-up words (a birthday search).
    const seen = new Map<number, string>();
    let pair: [string, string] | null = null;
    const random = seeded(7);
    while (!pair) {
      const word = Array.from({ length: 6 }, () => "abcdefghijklmnopqrstuvwxyz"[Math.floor(random() * 26)]).join("");
      const hash = wordHash(word)!;
      const other = seen.get(hash);
      if (other !== undefined && other !== word) pair = [other, word];
      else seen.set(hash, word);
    }
    const [one, two] = pair;
    const both = new TextWords(`${one} zq ${two} ${one}`);
    expect(both.has(one) && both.has(two)).toBe(true);
    expect(sorted(both.startsOf({ words: [one], prefixes: [] }))).toEqual([0, one.length + 4 + two.length + 1]);
    expect(both.startsOf({ words: [two], prefixes: [] })).toEqual([one.length + 4]);
    const first = new TextWords(`${one} zq ${one}`);
    expect(first.has(two)).toBe(false);
    expect(first.startsOf({ words: [two], prefixes: [] })).toEqual([]);
    expect(new TextWords(`zq ${two}`).has(one)).toBe(false);
  });
});

/** `re.test(text)` from the start, whatever an earlier call left in a global pattern's lastIndex. */
function plainTest(re: RegExp, text: string): boolean {
  re.lastIndex = 0;
  const hit = re.test(text);
  re.lastIndex = 0;
  return hit;
}

function seeded(seed: number): () => number {
  let s = seed * 2654435761;
  return () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32);
}

/** A pattern source as a tree: alternatives of sequences of quantified atoms. */
type Node = { alt: Item[][] } | { chars: string[] } | { text: string };
type Item = { node: Node; min: number; max: number };

/**
 * A string the pattern source may match: a random alternative of each group, a random count
 * of each quantifier, a character of each class. Assertions are not enforced (the caller
 * keeps only samples the pattern does match).
 */
function sample(source: string, random: () => number): string {
  const gen = (node: Node): string => {
    if ("text" in node) return node.text;
    if ("chars" in node) return node.chars[Math.floor(random() * node.chars.length)]!;
    const seq = node.alt[Math.floor(random() * node.alt.length)]!;
    return seq.map((it) => Array.from({ length: it.min + Math.floor(random() * (it.max - it.min + 1)) }, () => gen(it.node)).join("")).join("");
  };
  return gen(parse(source));
}

function parse(source: string): Node {
  let i = 0;
  const alternatives = (): Node => {
    const alt: Item[][] = [[]];
    while (i < source.length && source[i] !== ")") {
      if (source[i] === "|") {
        alt.push([]);
        i++;
      } else alt[alt.length - 1]!.push(quantified(atom()));
    }
    return { alt };
  };
  const quantified = (node: Node): Item => {
    const m = /^(?:([?*+])|\{(\d+)(?:,(\d*))?\})\??/.exec(source.slice(i));
    if (!m) return { node, min: 1, max: 1 };
    i += m[0].length;
    if (m[1]) return { node, min: m[1] === "+" ? 1 : 0, max: m[1] === "?" ? 1 : 2 };
    const min = Number(m[2]);
    return { node, min, max: m[3] === undefined ? min : m[3] === "" ? min + 2 : Math.min(Number(m[3]), min + 3) };
  };
  const atom = (): Node => {
    const c = source[i]!;
    if (c === "(") {
      const head = /^\((?:\?(?:<?[=!]|:|<[A-Za-z_]\w*>))?/.exec(source.slice(i))![0];
      i += head.length;
      const body = alternatives();
      i++; // ")"
      return /[=!]$/.test(head) ? { text: "" } : body;
    }
    if (c === "[") {
      i++;
      const negated = source[i] === "^";
      if (negated) i++;
      const chars: string[] = [];
      while (source[i] !== "]") {
        const from = source[i] === "\\" ? escape() : source[i++]!;
        if (source[i] === "-" && source[i + 1] !== "]") {
          i++;
          const to = source[i] === "\\" ? escape() : source[i++]!;
          for (let cp = from.codePointAt(0)!; cp <= to.codePointAt(0)! && cp < from.codePointAt(0)! + 30; cp++) chars.push(String.fromCodePoint(cp));
        } else chars.push(from);
      }
      i++;
      return { chars: negated ? ["x", "7", "q", "-"].filter((x) => !chars.includes(x)) : chars };
    }
    if (c === "\\") return { text: escape() };
    i++;
    return { text: c === "." ? "x" : c === "^" || c === "$" ? "" : c };
  };
  /** The character an escape at `i` stands for (a word boundary stands for nothing). */
  const escape = (): string => {
    const m = /^\\(?:u\{([0-9A-Fa-f]+)\}|u([0-9A-Fa-f]{4})|x([0-9A-Fa-f]{2})|[pP]\{[^}]*\}|.)/s.exec(source.slice(i))!;
    i += m[0].length;
    const hex = m[1] ?? m[2] ?? m[3];
    if (hex) return String.fromCodePoint(parseInt(hex, 16));
    const letter = m[0][1]!;
    return ({ b: "", B: "", s: " ", S: "x", d: "4", D: "x", w: "w", W: " ", n: "\n", t: "\t", p: "a", P: "1" } as Record<string, string>)[letter] ?? letter;
  };
  return alternatives();
}
