import type { Digest, Extractions, IntelMessage, IntelThread, Summary } from "./types.ts";

/** Who made a result: recorded with it, so a reader knows what to trust and a change of engine shows. */
export interface EngineInfo {
  engine: string;
  version: string;
  model: string | null;
}

/** The facts of a sender that an engine puts into words (src/intel/sender-facts.ts gathers them). */
export interface SenderFacts {
  address: string;
  display_name: string | null;
  disposition: "neutral" | "trusted" | "blocked";
  volume: { inbound: number; last_7_days: number; last_30_days: number; outbound_to: number };
  first_seen_at: string | null;
  last_seen_at: string | null;
  threads: number;
  replied_threads: number;
  reply_rate: number | null;
  triage: Record<string, number>;
  risk: Record<string, number>;
  signals: Record<string, number>;
  authentication: { spf: Record<string, number>; dkim: Record<string, number>; dmarc: Record<string, number> };
}

/** What an engine says of a sender beyond the facts. */
export interface SenderAssessment {
  /** One or two sentences a person or an agent can act on. */
  assessment: string;
  /** Whether mail from this sender deserves care: a short word the reader can branch on. */
  standing: "established" | "new" | "occasional" | "unwanted" | "suspicious";
}

/**
 * An intelligence engine: the local deterministic one, or a model behind an OpenAI-compatible
 * API. Engines see plain values (types.ts), never rows, and may throw; the caller falls back.
 */
export interface IntelEngine {
  readonly info: EngineInfo;
  summarize(m: IntelMessage): Promise<Summary>;
  extract(m: IntelMessage): Promise<Extractions>;
  digest(t: IntelThread): Promise<Digest>;
  assessSender(facts: SenderFacts): Promise<SenderAssessment>;
}
