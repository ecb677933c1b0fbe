/**
 * One parser thread of the pool in index.ts: takes the raw bytes, answers the parsed mail, its
 * extracted text and snippet and, when asked, the content verdict of the assessment and the
 * full-text vector's pieces. The HTML-to-text
 * conversion, the line rules and the content rules cost as much as a parse on hostile mail,
 * and read the parsed parts, so they run here too, under the same budget: the parts never
 * cross threads for them. The pool owns the time budget and terminates this thread when a
 * parse overruns it.
 */
import { serveWorker } from "../../workers/serve.ts";
import { assessMessageContent } from "../assess/content.ts";
import { snippetOf, splitReply } from "../extract.ts";
import { tokenizeText } from "../text-vector.ts";
import { textVectorPieces, WordLexicon } from "../text-vector-pieces.ts";
import { parseInline } from "./convert.ts";
import type { ParseRequest, Parsed } from "./index.ts";

const WARM_UP = new TextEncoder().encode(
  "From: a@example.com\r\nTo: b@example.com\r\nSubject: warm-up\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Hello <a href=\"https://example.com\">there</a></p>\r\n",
);

/** The words this thread has learned the lexemes of (text-vector-pieces.ts). */
const lexicon = new WordLexicon();

serveWorker<ParseRequest, Parsed>(
  async ({ raw, assess, vector }) => {
    const mail = await parseInline(raw);
    const { text: extractedText, quoted: quotedText } = splitReply({ text: mail.text, html: mail.html });
    const snippet = snippetOf(extractedText || mail.text || "");
    // The text the full-text vector indexes (the extracted text, as storeContent stores it), in
    // pieces made here rather than by the database, when the service makes the vector
    // (SEARCH_VECTOR); none for a text shorter than asked for, which the row's trigger makes.
    let textPieces;
    if (vector) {
      if (vector.learned) lexicon.learn(vector.learned);
      const split = extractedText.length >= (vector.fromChars ?? 0) ? tokenizeText(extractedText) : null;
      textPieces = split ? textVectorPieces(split, lexicon, vector.numbersPlain) : null;
    }
    if (!assess) return { mail, extractedText, quotedText, snippet, textPieces };
    const content = assessMessageContent({ mail, headers: mail.headers, envelope: assess.envelope }, assess.mailDomain);
    return { mail, extractedText, quotedText, snippet, content, textPieces };
  },
  // Attachments move to the main thread instead of being copied (each owns its buffer).
  ({ mail }) => [...new Set(mail.attachments.map((a) => a.content.buffer as ArrayBuffer))],
  // Parse, convert and split once, so the code of every step is loaded before the first mail.
  async () => {
    const mail = await parseInline(WARM_UP);
    splitReply({ text: mail.text, html: mail.html });
  },
);
