/**
 * One composer thread of the pool in composer.ts: builds the MIME message (quoted-printable
 * or base64 bodies, folded headers, CRLF) and everything else a send needs of its bodies
 * that is linear in their size: the raw message's SHA-256 (its blob key) and each body as
 * JSON text, ready to be spliced into the send's answer. All of it goes back moved, not copied.
 */
import { threadId } from "node:worker_threads";
import { serveWorker } from "../../workers/serve.ts";
import { compose } from "./compose.ts";
import { ownBuffer, type Composed, type ComposeRequest } from "./composer.ts";

const decoder = new TextDecoder();
const text = (bytes: Uint8Array | null) => (bytes === null ? null : decoder.decode(bytes));
const json = (value: string | null) => (value === null ? null : ownBuffer(Buffer.from(JSON.stringify(value))));

serveWorker<ComposeRequest, Composed>(
  async ({ composition, textBody, htmlBody }) => {
    const c = { ...composition, textBody: text(textBody), htmlBody: text(htmlBody) };
    const raw = ownBuffer(await compose(c));
    const sha256 = new Bun.CryptoHasher("sha256").update(raw).digest("hex");
    return { raw, sha256, threadId, bodies: { text: textBody, html: htmlBody }, bodiesJson: { text: json(c.textBody), html: json(c.htmlBody) } };
  },
  (v) => [v.raw, v.bodies.text, v.bodies.html, v.bodiesJson.text, v.bodiesJson.html].filter((b) => b !== null).map((b) => b.buffer as ArrayBuffer),
);
