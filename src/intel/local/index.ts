import type { IntelEngine } from "../engine.ts";
import { digest } from "./digest.ts";
import { extract } from "./extract.ts";
import { assessSender } from "./sender.ts";
import { summarize } from "./summary.ts";

/**
 * The engine that needs no network: extractive summaries, rule- and library-based
 * extraction (chrono-node, libphonenumber-js), phrase-cue digests. Deterministic, so its
 * results only change when the input or this version does. Bump the version whenever a
 * change alters results: cached results record it.
 */
export const LOCAL_ENGINE_VERSION = "1.0.0";

export const localEngine: IntelEngine = {
  info: { engine: "local", version: LOCAL_ENGINE_VERSION, model: null },
  summarize: async (m) => summarize(m),
  extract: async (m) => extract(m),
  digest: async (t) => digest(t),
  assessSender: async (f) => assessSender(f),
};
