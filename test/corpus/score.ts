/** Scores for the quality benches and corpus tests: exact match and token F1 of texts. */

const tokens = (s: string) => s.toLowerCase().split(/[\s\p{P}]+/u).filter(Boolean);

/** Token F1 of a result against the expected text (bag of words; 1 when both are empty). */
export function tokenF1(got: string, want: string): number {
  const g = tokens(got);
  const w = tokens(want);
  if (g.length === 0 && w.length === 0) return 1;
  if (g.length === 0 || w.length === 0) return 0;
  const bag = new Map<string, number>();
  for (const t of w) bag.set(t, (bag.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of g) {
    const n = bag.get(t) ?? 0;
    if (n > 0) {
      common++;
      bag.set(t, n - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / g.length;
  const recall = common / w.length;
  return (2 * precision * recall) / (precision + recall);
}

/** Equal after trimming each line and collapsing blank-line runs (layout noise of HTML rendering). */
export function sameText(got: string, want: string): boolean {
  const norm = (s: string) => s.split("\n").map((l) => l.trim()).join("\n").replace(/\n{3,}/g, "\n\n").trim();
  return norm(got) === norm(want);
}
