import { describe, expect, test } from "bun:test";
import { decodeAttachmentBody } from "../src/mail/attachment-bytes.ts";
import { cleanBase64, decodeBody } from "../src/mail/parse/body-ranges.ts";

/**
 * Attachment downloads decode large quoted-printable and unclean base64 bodies in a worker
 * (src/mail/parse/decode-worker.ts); the bytes must be the ones decodeBody gives on the main
 * thread, which the ingest-storage tests hold equal to the parser's.
 */
const enc = new TextEncoder();

function bytes(n: number, seed = 7): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** Quoted-printable of random bytes, 76-column lines with soft breaks, some trailing blanks. */
function qp(data: Uint8Array): Uint8Array {
  let line = "";
  const lines: string[] = [];
  for (const b of data) {
    const printable = b >= 33 && b <= 126 && b !== 61;
    const token = printable ? String.fromCharCode(b) : `=${b.toString(16).toUpperCase().padStart(2, "0")}`;
    if (line.length + token.length > 75) {
      lines.push(`${line}=`);
      line = "";
    }
    line += token;
  }
  lines.push(line);
  return enc.encode(lines.map((l, i) => (i % 97 === 0 ? `${l}  ` : l)).join("\r\n"));
}

describe("attachment bodies decoded for download", () => {
  test("a large quoted-printable body: the worker's bytes equal decodeBody's and the original", async () => {
    const data = bytes(400_000);
    const body = qp(data);
    expect(body.byteLength).toBeGreaterThan(128 * 1024);
    const out = await decodeAttachmentBody(body, "quoted-printable");
    expect(Buffer.compare(Buffer.from(out), Buffer.from(decodeBody(body, "quoted-printable")))).toBe(0);
    expect(Buffer.compare(Buffer.from(out), Buffer.from(data))).toBe(0);
  });

  test("a large base64 body with stray characters and padding inside: same bytes as decodeBody", async () => {
    const data = bytes(300_000, 11);
    const b64 = Buffer.from(data).toString("base64");
    const half = Math.floor(b64.length / 8) * 4;
    // Junk between lines and a padded segment in the middle: not the native path.
    const dirty = `${b64.slice(0, half).replace(/(.{76})/g, "$1\r\n!")}==\r\n${b64.slice(half)}`;
    const body = enc.encode(dirty);
    const out = await decodeAttachmentBody(body, "base64");
    expect(Buffer.compare(Buffer.from(out), Buffer.from(decodeBody(body, "base64")))).toBe(0);
    expect(out.byteLength).toBeGreaterThan(200_000);
  });

  test("small and identity bodies are decoded as before", async () => {
    const body = enc.encode("caf=C3=A9 =\r\nna=C3=AFve");
    expect(new TextDecoder().decode(await decodeAttachmentBody(body, "quoted-printable"))).toBe("café naïve");
    const raw = bytes(200_000);
    expect(await decodeAttachmentBody(raw, "identity")).toBe(raw);
  });

  test("a base64 body is taken as clean, and decoded, exactly when the checks before the one-pass decoder said so", () => {
    // The checks cleanBase64 made before Uint8Array.fromBase64 (whose bytes the ingest-storage
    // tests hold equal to the parser's): only base64 characters and line breaks, padded at the end.
    const before = (body: Uint8Array): Uint8Array | null => {
      const text = Buffer.from(body).toString("latin1");
      if (/[^A-Za-z0-9+/=\r\n]/.test(text)) return null;
      const pad = text.indexOf("=");
      if (pad >= 0 && /[A-Za-z0-9+/]/.test(text.slice(pad))) return null;
      return new Uint8Array(Buffer.from(text, "base64"));
    };
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const odd = ["=", "==", "\r\n", "\n", "\r", " ", "\t", "\f", "!", "-", "_", "\u00e9", "\u0000"];
    let x = 3;
    const random = () => ((x = (x * 1103515245 + 12345) >>> 0) >>> 8) / 2 ** 24;
    const bodies: string[] = ["", "=", "==", "\r\n", "QQ", "QR", "QUI", "QUJ", "QUJD", "Q", "QUJDR", "QQ==", "QR==", "QUI=", "QQ===", "QQ==\r\n", "QQ=\r\n=", "QQ==QQ==", "QUJD\r\nRA==\r\n"];
    for (let n = 0; n < 4000; n++) {
      let body = "";
      const length = Math.floor(random() * (n % 10 === 0 ? 400 : 24));
      for (let i = 0; i < length; i++) body += random() < 0.9 ? alphabet[Math.floor(random() * 64)] : odd[Math.floor(random() * odd.length)];
      // Most mail is clean, often padded at the end.
      if (random() < 0.3) body += ["=", "==", "\r\n", "==\r\n"][Math.floor(random() * 4)];
      bodies.push(body);
    }
    for (const text of bodies) {
      const body = new Uint8Array(Buffer.from(text, "latin1"));
      const now = cleanBase64(body);
      const then = before(body);
      expect({ text, clean: now !== null }).toEqual({ text, clean: then !== null });
      if (now && then) expect({ text, bytes: Buffer.from(now).toString("hex") }).toEqual({ text, bytes: Buffer.from(then).toString("hex") });
    }
  });
});
