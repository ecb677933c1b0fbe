import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * The direction of the dependencies between the actor runtime, the mailbox actor and the rest:
 * actors/runtime is a library that imports nothing of ours; the mailbox actor may use the
 * domain and mail modules but not the HTTP layer; src/ reaches the mailbox actor only through
 * its derived client (the composition root and the cluster wiring also register the actor and
 * carry its wire format).
 */
const root = resolve(import.meta.dir, "..");

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(dir, f));
}

/** The repository-relative files a module imports (relative specifiers only; packages are not ours). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/g)) {
    const spec = m[1]!;
    if (spec.startsWith(".")) out.push(relative(root, resolve(root, dirname(file), spec)));
  }
  for (const m of text.matchAll(/\bimport\(\s*["'](\.[^"']+)["']\s*\)/g)) out.push(relative(root, resolve(root, dirname(file), m[1]!)));
  return out;
}

describe("dependencies run one way", () => {
  test("actors/runtime imports nothing outside itself", () => {
    const outside = sources("actors/runtime").flatMap((f) => importsOf(f).filter((i) => !i.startsWith("actors/runtime/")).map((i) => `${f} → ${i}`));
    expect(outside).toEqual([]);
  });

  test("the mailbox actor does not import the HTTP layer or the service", () => {
    const bad = sources("actors/mailbox").flatMap((f) => importsOf(f).filter((i) => i.startsWith("src/http/") || i === "src/service.ts").map((i) => `${f} → ${i}`));
    expect(bad).toEqual([]);
  });

  test("src/ calls the mailbox actor only through its client", () => {
    const wiring = (f: string) => f === "src/service.ts" || f.startsWith("src/cluster/");
    const bad = sources("src")
      .filter((f) => !wiring(f))
      .flatMap((f) => importsOf(f).filter((i) => i.startsWith("actors/mailbox/") && i !== "actors/mailbox/client.ts").map((i) => `${f} → ${i}`));
    expect(bad).toEqual([]);
  });
});
