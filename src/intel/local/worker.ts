/**
 * One thread of the local engine's pool (src/intel/pooled.ts): runs a summary, extraction or
 * digest, or makes messages' texts from their parts, and answers the result. The pool owns the time budget and terminates this thread
 * when a call overruns it.
 */
import { extractText } from "../../mail/extract.ts";
import { serveWorker } from "../../workers/serve.ts";
import type { IntelMessage, IntelThread } from "../types.ts";
import { digest } from "./digest.ts";
import { extract } from "./extract.ts";
import { summarize } from "./summary.ts";

export type LocalCall =
  | { op: "summarize"; input: IntelMessage }
  | { op: "extract"; input: IntelMessage }
  | { op: "digest"; input: IntelThread }
  | { op: "texts"; input: { text: string | null; html: string | null }[] };

serveWorker<LocalCall, unknown>((call) => {
  switch (call.op) {
    case "summarize":
      return summarize(call.input);
    case "extract":
      return extract(call.input);
    case "digest":
      return digest(call.input);
    case "texts":
      return call.input.map(extractText);
  }
});
