/**
 * Text decoding for header values: raw 8-bit bytes and RFC 2047 encoded words. Uses the
 * WHATWG decoders built into the runtime (UTF-8, the ISO-8859 and Windows code pages,
 * Shift_JIS, ISO-2022-JP, EUC-*, GBK, Big5, KOI8), so it is cheap enough for the main thread
 * and needs no library. Everything is linear in the input.
 */

const decoders = new Map<string, TextDecoder | null>();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const cp1252 = new TextDecoder("windows-1252");

function decoderFor(charset: string): TextDecoder | null {
  const label = charset.trim().toLowerCase();
  let d = decoders.get(label);
  if (d === undefined) {
    try {
      d = new TextDecoder(label as ConstructorParameters<typeof TextDecoder>[0]);
    } catch {
      d = null; // unknown label, or one of WHATWG's "replacement" charsets (ISO-2022-KR/CN)
    }
    // Labels come from mail, so the cache must not grow with whatever senders invent.
    if (decoders.size < 256) decoders.set(label, d);
  }
  return d;
}

/** Whether a charset label names a decoder we have (WHATWG labels). */
export const knowsCharset = (charset: string) => decoderFor(charset) !== null;

/**
 * Bytes in no declared charset (raw 8-bit headers, unknown labels): UTF-8 when they are
 * valid UTF-8 (RFC 6532 mail is), otherwise Windows-1252, the usual undeclared legacy
 * charset, which maps every byte to some character so nothing turns into U+FFFD.
 */
export function decodeUndeclared(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return cp1252.decode(bytes);
  }
}

export function decodeCharset(bytes: Uint8Array, charset: string | null | undefined): string {
  const d = charset ? decoderFor(charset) : null;
  // "utf-8" is also what mislabelled Latin-1 mail claims most often.
  if (!d || d.encoding === "utf-8") return decodeUndeclared(bytes);
  return d.decode(bytes);
}

// =?charset[*lang]?B|Q?text?= (RFC 2047 section 2, RFC 2231 section 5 for the language).
const WORD = /=\?([^?\s*]{1,64})(?:\*[^?\s]{0,32})?\?([BbQq])\?([^?\s]*)\?=/g;

function wordBytes(encoding: string, text: string): Uint8Array {
  if (encoding === "B" || encoding === "b") return Buffer.from(text, "base64");
  const out = new Uint8Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5f) out[n++] = 0x20; // "_" is a space in Q encoding
    else if (c === 0x3d && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      out[n++] = Number.parseInt(text.slice(i + 1, i + 3), 16);
      i += 2;
    } else out[n++] = c & 0xff;
  }
  return out.subarray(0, n);
}

/**
 * Decodes RFC 2047 encoded words in an (already unfolded) header value. White space between
 * two encoded words is dropped, as the RFC says, and the bytes of adjacent words in the same
 * charset are joined before decoding, since encoders split multi-byte characters across words.
 */
export function decodeWords(value: string): string {
  if (!value.includes("=?")) return value;
  let out = "";
  let last = 0;
  let pending: { charset: string; chunks: Uint8Array[] } | null = null;
  const flush = () => {
    if (pending) out += decodeCharset(Buffer.concat(pending.chunks), pending.charset);
    pending = null;
  };
  for (const m of value.matchAll(WORD)) {
    const gap = value.slice(last, m.index);
    const charset = m[1]!.toLowerCase();
    const bytes = wordBytes(m[2]!, m[3]!);
    if (pending && /^[ \t]*$/.test(gap) && pending.charset === charset) {
      pending.chunks.push(bytes);
    } else {
      flush();
      // A gap of only white space between encoded words disappears (RFC 2047 section 6.2).
      if (!(last > 0 && /^[ \t]*$/.test(gap))) out += gap;
      pending = { charset, chunks: [bytes] };
    }
    last = m.index + m[0].length;
  }
  flush();
  return out + value.slice(last);
}
