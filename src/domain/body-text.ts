/**
 * A message body as a send gives it: text, or, for a large one, its UTF-8 bytes. The JSON
 * worker hands a send's large bodies over as bytes (src/http/json-intake.ts): making strings
 * of them on the event loop (a structured clone of two 4 MiB strings, then encoding them again
 * for the composer) cost ~40–90 ms of the thread's CPU. Whoever needs the text asks for it.
 */
export type BodyText = string | Uint8Array;

const utf8 = new TextDecoder();

export const bodyString = (body: BodyText): string => (typeof body === "string" ? body : utf8.decode(body));

/** The body's first `maxBytes` as text (enough for a snippet), bytes cut at a character boundary. */
export function bodyHead(body: BodyText, maxBytes = 32 * 1024): string {
  if (typeof body === "string") return body;
  let end = Math.min(maxBytes, body.byteLength);
  // Back off over continuation bytes (10xxxxxx) so no character is cut in two.
  if (end < body.byteLength) while (end > 0 && (body[end]! & 0xc0) === 0x80) end--;
  return utf8.decode(body.subarray(0, end));
}

export const holdsNul = (body: BodyText): boolean => (typeof body === "string" ? body.includes("\0") : body.includes(0));
