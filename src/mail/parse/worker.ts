/**
 * One parser thread of the pool in index.ts: takes the raw bytes, answers the parsed mail.
 * The pool owns the time budget and terminates this thread when a parse overruns it.
 */
import { serveWorker } from "../../workers/serve.ts";
import type { ParsedMail } from "../types.ts";
import { parseInline } from "./convert.ts";

// Attachments move to the main thread instead of being copied (each owns its buffer).
serveWorker<Uint8Array, ParsedMail>(parseInline, (mail) => [...new Set(mail.attachments.map((a) => a.content.buffer as ArrayBuffer))]);
