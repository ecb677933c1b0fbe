import fc from "fast-check";
import { anyString } from "./values.ts";

/**
 * Generated mail: random and hostile headers, nested multiparts, broken transfer encodings and
 * charsets, many recipients, long lines and raw 8-bit bytes. Messages are built as latin1
 * strings (one char per byte) so any byte can appear; `bytes()` turns one into what is sent.
 */

export const bytes = (latin1: string): Uint8Array => Uint8Array.from(latin1, (c) => c.charCodeAt(0) & 0xff);

/** UTF-8 bytes of `s` as a latin1 string, so non-ASCII text survives `bytes()`. */
const utf8 = (s: string) => Buffer.from(s, "utf8").toString("latin1");

const b64 = (s: string) => Buffer.from(s, "latin1").toString("base64");

const headerText = fc.oneof(
  { weight: 4, arbitrary: anyString(80).map(utf8) },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((s) => `=?utf-8?B?${b64(utf8(s))}?=`) },
  { weight: 1, arbitrary: fc.constantFrom("=?utf-8?B?!!!invalid===?=", "=?x-unknown?Q?caf=E9?=", "=?utf-8?Q?=ZZ=?=", "=?utf-8?B??=", "=??B?YQ==?=", "=?utf-16?B?2D3eAA==?=", "=?iso-2022-jp?B?GyRCJEgbKEI=?=", "=?utf-8*en?Q?a?=") },
  { weight: 1, arbitrary: fc.integer({ min: 998, max: 20_000 }).map((n) => "h".repeat(n)) },
  { weight: 1, arbitrary: fc.constantFrom("\r\n continued", "\r\n\tfolded\r\n\tagain", "trailing\r\n ", "\u0000nul", "\u00ff\u00fe raw bytes") },
);

const address = fc.oneof(
  { weight: 3, arbitrary: fc.emailAddress() },
  { weight: 1, arbitrary: fc.constantFrom("<>", "undisclosed-recipients:;", "\"quoted, name\" <q@example.com>", "a@b@c", "@example.com", "user@", "<user@[127.0.0.1]>", "=?utf-8?B?w6k=?= <e@example.com>", "group: a@x.example, b@y.example;", "x@" + "d".repeat(300) + ".example", "\"\\\"\" <esc@example.com>", "üser@exämple.com") },
);

const addressList = (min: number, max: number) => fc.array(address, { minLength: min, maxLength: max }).map((a) => a.join(", "));

const charset = fc.constantFrom("utf-8", "us-ascii", "iso-8859-1", "windows-1252", "x-unknown", "utf-16", "utf-7", "gb2312", "shift_jis", "", "\"utf-8\"", "utf-8; format=flowed");
const encoding = fc.constantFrom("7bit", "8bit", "binary", "base64", "quoted-printable", "x-uuencode", "BASE64", "bogus", "");
const textType = fc.constantFrom("text/plain", "text/html", "text/calendar", "text/enriched", "application/octet-stream", "application/pdf", "image/png", "message/rfc822", "message/delivery-status", "application/ms-tnef", "text/x-unknown", "", "garbage", "text/");

/** A leaf body in an encoding that may not fit it. */
const leafBody = fc.oneof(
  { weight: 4, arbitrary: anyString(400).map(utf8) },
  { weight: 1, arbitrary: fc.string({ maxLength: 300 }).map((s) => b64(utf8(s))) },
  { weight: 1, arbitrary: fc.constantFrom("!!!not base64***\r\n====", "=ZZ=\r\n=\r\n=3", "<html><body><script>alert(1)</script><img src=x onerror=1>" + "<div>".repeat(2000), "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:99999999T999999Z\r\nEND:VEVENT\r\n", "begin 644 x\r\n`\r\nend\r\n") },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 200_000 }).map((n) => "L".repeat(n)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2000 }).map((b) => Buffer.from(b).toString("latin1")) },
);

interface Part {
  headers: string[];
  body: string;
}

const leaf: fc.Arbitrary<Part> = fc.record({ type: textType, charset, encoding, name: fc.option(anyString(40).map(utf8)), body: leafBody }).map(({ type, charset, encoding, name, body }) => ({
  headers: [
    `Content-Type: ${type}${charset ? `; charset=${charset}` : ""}${name !== null ? `; name="${name}"` : ""}`,
    ...(encoding ? [`Content-Transfer-Encoding: ${encoding}`] : []),
    ...(name !== null ? [`Content-Disposition: attachment; filename="${name}"`] : []),
  ],
  body,
}));

/** Multiparts nested up to `depth`, sometimes with a boundary that is missing, reused or never closed. */
const part = (depth: number): fc.Arbitrary<Part> =>
  depth <= 0
    ? leaf
    : fc.oneof(
        { weight: 2, arbitrary: leaf },
        {
          weight: 1,
          arbitrary: fc
            .record({
              sub: fc.constantFrom("mixed", "alternative", "related", "signed", "digest", "report", "x-bogus"),
              boundary: fc.constantFrom("b1", "b1", "", "=_?", "x".repeat(100), "a b", "--"),
              children: fc.array(part(depth - 1), { minLength: 0, maxLength: 4 }),
              closed: fc.boolean(),
            })
            .map(({ sub, boundary, children, closed }) => ({
              headers: [`Content-Type: multipart/${sub}; boundary="${boundary}"`],
              body: children.map((c) => `--${boundary}\r\n${c.headers.join("\r\n")}\r\n\r\n${c.body}\r\n`).join("") + (closed ? `--${boundary}--\r\n` : ""),
            })),
        },
      );

/** A deeply nested multipart, beyond what the generator reaches by chance. */
const deepMultipart = fc.integer({ min: 20, max: 400 }).map((depth) => {
  let body = "Content-Type: text/plain\r\n\r\ninnermost\r\n";
  for (let i = 0; i < depth; i++) body = `Content-Type: multipart/mixed; boundary="d${i}"\r\n\r\n--d${i}\r\n${body}--d${i}--\r\n`;
  const split = body.indexOf("\r\n\r\n");
  return { headers: [body.slice(0, split)], body: body.slice(split + 4) };
});

const extraHeader = fc.oneof(
  fc.tuple(fc.constantFrom("X-Fuzz", "Reply-To", "Sender", "List-Unsubscribe", "Auto-Submitted", "Precedence", "X-Spam-Status", "DKIM-Signature", "Received", "Return-Path", "Authentication-Results", "Date", "Message-ID", "In-Reply-To", "References", "Content-Language", "X-Priority"), headerText).map(([k, v]) => `${k}: ${v}`),
  fc.constantFrom("NoColonHere", ": empty name", "X-Empty:", " leading-space: x", "X-Dup: 1\r\nX-Dup: 2", "Date: Mon, 99 Foo 99999 99:99:99 +9999", "Message-ID: <>", "In-Reply-To: <" + "r".repeat(2000) + "@x>", "References: " + Array.from({ length: 300 }, (_, i) => `<r${i}@x.example>`).join(" ")),
);

export interface GeneratedMail {
  raw: string;
  /** How many addresses the To and Cc headers name (the known Cc finding keys on it). */
  recipients: number;
}

/** A whole message addressed to `to` (so it is deliverable), with everything else generated. */
export const mail = (to: string): fc.Arbitrary<GeneratedMail> =>
  fc
    .record({
      from: address,
      extraTo: addressList(0, 3),
      cc: fc.oneof({ weight: 4, arbitrary: addressList(0, 3) }, { weight: 1, arbitrary: addressList(20, 120) }),
      subject: headerText,
      headers: fc.array(extraHeader, { maxLength: 8 }),
      manyHeaders: fc.oneof({ weight: 9, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 100, max: 3000 }) }),
      body: fc.oneof({ weight: 6, arbitrary: part(3) }, { weight: 1, arbitrary: deepMultipart }),
      mime: fc.boolean(),
      lineEnding: fc.constantFrom("\r\n", "\r\n", "\n", "\r"),
    })
    .map(({ from, extraTo, cc, subject, headers, manyHeaders, body, mime, lineEnding }) => {
      const lines = [
        `From: ${from}`,
        `To: ${[to, extraTo].filter(Boolean).join(", ")}`,
        ...(cc ? [`Cc: ${cc}`] : []),
        `Subject: ${subject}`,
        ...(mime ? ["MIME-Version: 1.0"] : []),
        ...headers,
        ...Array.from({ length: manyHeaders }, (_, i) => `X-Many-${i}: ${i}`),
        ...body.headers,
      ];
      const raw = `${lines.join("\r\n")}\r\n\r\n${body.body}`.replace(/\r\n/g, lineEnding);
      return { raw, recipients: (`${extraTo}, ${cc}`.match(/@/g)?.length ?? 0) + 1 };
    });
