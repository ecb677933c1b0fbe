/**
 * A static, conservative check for regular expressions that can backtrack exponentially,
 * run on every `pattern` of a tenant's schema before it is stored. It refuses a repeated
 * group that can split one run of input into its iterations in many ways:
 *
 *   nested quantifiers   `(a+)+`, `(\w+\s?)*`, `(x+x+)+`: a repetition inside a repetition,
 *                        either of them unbounded, unless every iteration holds exactly one
 *                        literal character that nothing else in it can match (a separator,
 *                        as in `([a-z0-9]+\.)+` or `(?:[a-z]+-)*`);
 *   overlapping choices  `(a|a)*`, `(a|ab)*`, `(\d|[0-9a-f])+`: alternatives inside a
 *                        repetition whose first characters may coincide.
 *
 * It errs on the side of refusing: a pattern it cannot prove delimited is refused with the
 * reason, and the author can rewrite it. Polynomial backtracking (`\S+@\S+`) is not refused;
 * validation that uses patterns runs in a worker with a time budget (validation-pool.ts).
 * Patterns are read as Ajv compiles them (the `u` flag), after Ajv has accepted their syntax.
 * Character semantics (does `[a-z0-9]` match "."?) are asked of the RegExp engine itself.
 */

type Node =
  | { kind: "leaf"; src: string; lit?: string }
  | { kind: "assert" }
  | { kind: "group"; alts: Node[][] }
  | { kind: "quant"; min: number; max: number; body: Node };

/** Characters that u-mode lets a backslash escape outside a class. */
const SYNTAX = "^$\\.*+?()[]{}|/";

/** Why `pattern` may backtrack catastrophically; null when it is safe by these rules. */
export function catastrophicBacktracking(pattern: string): string | null {
  let tree: Node;
  try {
    tree = new Parser(pattern).parse();
  } catch (err) {
    return `cannot be analysed: ${(err as Error).message}`;
  }
  return check(tree);
}

function check(node: Node): string | null {
  switch (node.kind) {
    case "leaf":
    case "assert":
      return null;
    case "group":
      for (const alt of node.alts) for (const n of alt) {
        const found = check(n);
        if (found) return found;
      }
      return null;
    case "quant": {
      const inner = check(node.body);
      if (inner) return inner;
      if (node.max <= 1) return null;
      const risky = quantsIn(node.body).filter((q) => q.max > 1 && (q.max === Infinity || node.max === Infinity));
      if (risky.length > 0 && !delimited(node.body)) {
        return "has nested quantifiers without a separator between iterations (like (a+)+), which can backtrack exponentially";
      }
      if (node.max === Infinity || node.max > 16) {
        for (const group of groupsIn(node.body)) if (group.alts.length > 1 && !distinctStarts(group.alts)) {
          return "repeats alternatives that can start with the same character (like (a|ab)*), which can backtrack exponentially";
        }
      }
      return null;
    }
  }
}

/** Quantified nodes anywhere inside `node`, itself included. */
function quantsIn(node: Node): Extract<Node, { kind: "quant" }>[] {
  if (node.kind === "quant") return [node, ...quantsIn(node.body)];
  if (node.kind === "group") return node.alts.flatMap((alt) => alt.flatMap(quantsIn));
  return [];
}

function groupsIn(node: Node): Extract<Node, { kind: "group" }>[] {
  if (node.kind === "group") return [node, ...node.alts.flatMap((alt) => alt.flatMap(groupsIn))];
  if (node.kind === "quant") return groupsIn(node.body);
  return [];
}

function leavesIn(node: Node): Extract<Node, { kind: "leaf" }>[] {
  if (node.kind === "leaf") return [node];
  if (node.kind === "quant") return leavesIn(node.body);
  if (node.kind === "group") return node.alts.flatMap((alt) => alt.flatMap(leavesIn));
  return [];
}

/**
 * Every iteration of `body` holds exactly one of some literal character: a plain literal of
 * the body that nothing else in the body can match. The input's occurrences of it then fix
 * where iterations end, so they cannot be split in more than one way.
 */
function delimited(body: Node): boolean {
  if (body.kind !== "group" || body.alts.length !== 1) return false;
  const leaves = leavesIn(body);
  return body.alts[0]!.some((item) => {
    if (item.kind !== "leaf" || item.lit === undefined) return false;
    const lit = item.lit;
    return !leaves.some((other) => other !== item && matches(other.src, lit));
  });
}

/** The alternatives start with different characters: at most one class, and literals it does not match. */
function distinctStarts(alts: Node[][]): boolean {
  const literals = new Set<string>();
  let classes: string[] = [];
  for (const alt of alts) {
    let first = alt[0];
    if (first?.kind === "quant" && first.min >= 1) first = first.body;
    if (!first || first.kind !== "leaf") return false;
    if (first.lit !== undefined) {
      if (literals.has(first.lit)) return false;
      literals.add(first.lit);
    } else classes.push(first.src);
  }
  if (classes.length > 1) return false;
  return !classes.some((src) => [...literals].some((lit) => matches(src, lit)));
}

function matches(src: string, ch: string): boolean {
  try {
    return new RegExp(`^(?:${src})$`, "u").test(ch);
  } catch {
    return true;
  }
}

/** Just enough of ECMA-262 `u`-mode syntax to see repetitions, groups, choices and atoms. */
class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  parse(): Node {
    const node = this.alternation();
    if (this.i < this.s.length) throw new Error(`unexpected "${this.s[this.i]}" at ${this.i}`);
    return node;
  }

  private alternation(): Extract<Node, { kind: "group" }> {
    const alts: Node[][] = [[]];
    while (this.i < this.s.length && this.s[this.i] !== ")") {
      if (this.s[this.i] === "|") {
        this.i++;
        alts.push([]);
        continue;
      }
      const atom = this.atom();
      alts[alts.length - 1]!.push(this.quantifier(atom));
    }
    return { kind: "group", alts };
  }

  private atom(): Node {
    const s = this.s;
    const start = this.i;
    const c = String.fromCodePoint(s.codePointAt(this.i)!);
    this.i += c.length;
    if (c === "^" || c === "$") return { kind: "assert" };
    if (c === ".") return { kind: "leaf", src: "." };
    if (c === "(") {
      if (s.startsWith("?:", this.i) || s.startsWith("?=", this.i) || s.startsWith("?!", this.i)) this.i += 2;
      else if (s.startsWith("?<=", this.i) || s.startsWith("?<!", this.i)) this.i += 3;
      else if (s.startsWith("?<", this.i)) this.i = s.indexOf(">", this.i) + 1;
      const group = this.alternation();
      if (s[this.i++] !== ")") throw new Error("unclosed group");
      return group;
    }
    if (c === "[") {
      while (this.i < s.length && s[this.i] !== "]") this.i += s[this.i] === "\\" ? 2 : 1;
      if (s[this.i++] !== "]") throw new Error("unclosed class");
      return { kind: "leaf", src: s.slice(start, this.i) };
    }
    if (c === "\\") return this.escape(start);
    return { kind: "leaf", src: escapeLiteral(c), lit: c };
  }

  private escape(start: number): Node {
    const s = this.s;
    const c = s[this.i++];
    if (c === undefined) throw new Error("trailing backslash");
    if (c === "b" || c === "B") return { kind: "assert" };
    if ((c === "p" || c === "P") && s[this.i] === "{") this.i = s.indexOf("}", this.i) + 1;
    else if (c === "u" && s[this.i] === "{") this.i = s.indexOf("}", this.i) + 1;
    else if (c === "u") this.i += 4;
    else if (c === "x") this.i += 2;
    else if (c === "c") this.i += 1;
    else if (c === "k" && s[this.i] === "<") this.i = s.indexOf(">", this.i) + 1;
    else if (/[1-9]/.test(c)) while (/[0-9]/.test(s[this.i] ?? "")) this.i++;
    if (this.i <= start) throw new Error("bad escape");
    const src = s.slice(start, this.i);
    return SYNTAX.includes(c) ? { kind: "leaf", src, lit: c } : { kind: "leaf", src };
  }

  private quantifier(atom: Node): Node {
    const s = this.s;
    let min: number;
    let max: number;
    const c = s[this.i];
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.i, this.i + 40));
      if (!m) return atom;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    if (s[this.i] === "?") this.i++;
    return { kind: "quant", min, max, body: atom };
  }
}

const escapeLiteral = (c: string) => (SYNTAX.includes(c) ? `\\${c}` : c);
