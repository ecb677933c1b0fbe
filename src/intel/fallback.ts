import type { Logger } from "../log.ts";
import type { EngineInfo, IntelEngine } from "./engine.ts";

export interface Made<T> {
  value: T;
  info: EngineInfo;
  /** Why the configured engine's answer was not used; null when it was. */
  fallbackReason: string | null;
}

/**
 * Runs a task on the configured engine and, when that fails (timeout, HTTP error, an answer
 * that is not what was asked), on the local one, saying why. The local engine has no
 * fallback: its errors are bugs and surface as such.
 */
export async function withFallback<T>(primary: IntelEngine, local: IntelEngine, task: (e: IntelEngine) => Promise<T>, log?: Logger): Promise<Made<T>> {
  if (primary === local) return { value: await task(local), info: local.info, fallbackReason: null };
  try {
    return { value: await task(primary), info: primary.info, fallbackReason: null };
  } catch (err) {
    const reason = describe(err);
    log?.warn({ engine: primary.info.engine, reason }, "intelligence engine failed; using the local engine");
    return { value: await task(local), info: local.info, fallbackReason: reason };
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    if (err.name === "TimeoutError" || err.name === "AbortError") return "the model endpoint did not answer in time (LLM_TIMEOUT_MS)";
    return err.message.slice(0, 300);
  }
  return String(err).slice(0, 300);
}
