/**
 * One parser thread of the pool in index.ts: takes the raw bytes, answers the parsed mail and
 * its extracted text (the HTML-to-text conversion and line rules cost as much as a parse on
 * hostile mail, so they run here too, under the same budget). The pool owns the time budget
 * and terminates this thread when a parse overruns it.
 */
import { serveWorker } from "../../workers/serve.ts";
import { extractText } from "../extract.ts";
import { parseInline } from "./convert.ts";
import type { Parsed } from "./index.ts";

serveWorker<Uint8Array, Parsed>(
  async (raw) => {
    const mail = await parseInline(raw);
    return { mail, extractedText: extractText({ text: mail.text, html: mail.html }) };
  },
  // Attachments move to the main thread instead of being copied (each owns its buffer).
  ({ mail }) => [...new Set(mail.attachments.map((a) => a.content.buffer as ArrayBuffer))],
);
