/**
 * The DATA collector (src/smtp/message.ts): the message it hands on is the bytes as received,
 * in shared memory, so the parser's and the authentication worker read it without a copy.
 */
import { expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { readMessage } from "../src/smtp/message.ts";

test("a complete DATA is the chunks byte for byte, in a SharedArrayBuffer of its exact size", async () => {
  const stream = new PassThrough();
  const chunks = [Buffer.from("Subject: hi\r\n\r\n"), Buffer.from(crypto.getRandomValues(new Uint8Array(70_000))), Buffer.from("\r\nend\r\n")];
  const read = readMessage(stream, 1_000_000);
  for (const c of chunks) stream.write(c);
  stream.end();
  const result = await read;
  if (result.kind !== "complete") throw new Error(`expected complete, got ${result.kind}`);
  expect(result.raw.buffer).toBeInstanceOf(SharedArrayBuffer);
  expect(result.raw.byteOffset).toBe(0);
  expect(result.raw.byteLength).toBe(result.raw.buffer.byteLength);
  expect(Buffer.compare(result.raw, Buffer.concat(chunks))).toBe(0);
});

test("a DATA over the limit is too big and keeps nothing", async () => {
  const stream = new PassThrough();
  const read = readMessage(stream, 10);
  stream.end(Buffer.from("x".repeat(11)));
  expect(await read).toEqual({ kind: "too-big", bytes: 11 });
});
