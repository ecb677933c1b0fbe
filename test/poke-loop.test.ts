/**
 * PokeLoop (src/jobs/poke-loop.ts): pokes while a run is under way coalesce into one more run,
 * which with a gap waits for it. No assertion here depends on how fast the machine is: "at
 * once" is checked in the same tick as the poke, and "later" by waiting for it.
 */
import { expect, test } from "bun:test";
import { PokeLoop } from "../src/jobs/poke-loop.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
}

/** A loop whose runs end when the test says so. */
function controlled(gapMs = 0) {
  const state = { runs: 0, release: () => {} };
  const loop = new PokeLoop(() => {
    state.runs++;
    return new Promise<void>((resolve) => (state.release = resolve));
  }, () => {}, gapMs);
  return { state, loop };
}

test("pokes while a run is under way make exactly one more run", async () => {
  const { state, loop } = controlled();
  loop.poke();
  expect(state.runs).toBe(1);
  loop.poke();
  loop.poke();
  expect(state.runs).toBe(1);
  state.release();
  await until(() => state.runs === 2);
  state.release();
  await tick();
  expect(state.runs).toBe(2);
  await loop.stop();
});

test("with a gap, the run those pokes make waits for it; a poke when idle runs at once", async () => {
  const gapMs = 50;
  const { state, loop } = controlled(gapMs);
  loop.poke();
  loop.poke();
  state.release();
  await tick();
  expect(state.runs).toBe(1); // the gap holds the second run back
  await until(() => state.runs === 2);
  state.release();
  await new Promise((resolve) => setTimeout(resolve, gapMs * 2));
  loop.poke();
  expect(state.runs).toBe(3);
  state.release();
  await loop.stop();
});

test("stop() cancels a run waiting for its gap and waits for the one under way", async () => {
  const { state, loop } = controlled(50);
  loop.poke();
  loop.poke();
  const stopped = loop.stop();
  state.release();
  await stopped;
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(state.runs).toBe(1);
});
