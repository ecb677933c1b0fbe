/**
 * The DATA scan of src/smtp/data-scan.ts against smtp-server's own: the same bytes, cut into
 * the same chunks, give the same message and the same bytes left over after the end marker.
 */
import { expect, test } from "bun:test";
import { _feedDataStreamForTests, SMTPStream } from "../src/smtp/data-scan.ts";

const original = (SMTPStream.prototype as any)._feedDataStream;

/** Feeds `chunks` in data mode; answers what the data stream got and the commands read after it. */
async function feed(scan: unknown, chunks: Buffer[]): Promise<{ data: string; after: string[] }> {
  const s: any = new SMTPStream();
  s._feedDataStream = scan;
  const after: string[] = [];
  s.oncommand = (cmd: Buffer, cb?: () => void) => {
    after.push(cmd.toString("latin1"));
    cb?.();
  };
  const ds = s.startDataMode(0);
  const got: Buffer[] = [];
  ds.on("data", (c: Buffer) => got.push(c));
  const ended = new Promise<void>((r) => ds.on("end", () => r()));
  for (const c of chunks) s.write(c);
  await ended;
  s.continue?.();
  await Bun.sleep(1);
  return { data: Buffer.concat(got).toString("latin1"), after };
}

// A deterministic generator, so a failure is reproducible.
function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

test("same message and remainder as smtp-server's scan for dot-stuffed data in random chunks", async () => {
  const rand = rng(42);
  const pieces = ["\r\n", ".", "..", "a", "line", "\n", "\r", ". ", "x\r\n.\r", "\r\n..\r\n", "\r\n.x"];
  for (let round = 0; round < 300; round++) {
    let body = "";
    const parts = 1 + Math.floor(rand() * 40);
    for (let i = 0; i < parts; i++) body += pieces[Math.floor(rand() * pieces.length)];
    const wire = Buffer.from(`${body}\r\n.\r\nQUIT\r\n`, "latin1");
    const chunks: Buffer[] = [];
    for (let at = 0; at < wire.length; ) {
      const n = 1 + Math.floor(rand() * 12);
      chunks.push(wire.subarray(at, at + n));
      at += n;
    }
    const want = await feed(original, chunks);
    const got = await feed(_feedDataStreamForTests, chunks);
    expect(got).toEqual(want);
    expect(want.after).toContain("QUIT");
  }
});

test("a 1 MiB message in 64 KiB chunks: the same bytes, escape dots removed", async () => {
  const line = "Lorem ipsum dolor sit amet, consectetur adipiscing elit\r\n..escaped\r\n";
  const wire = Buffer.from(`${line.repeat(Math.ceil((1024 * 1024) / line.length))}\r\n.\r\nQUIT\r\n`, "latin1");
  const chunks: Buffer[] = [];
  for (let at = 0; at < wire.length; at += 65536) chunks.push(wire.subarray(at, at + 65536));
  const want = await feed(original, chunks);
  const got = await feed(_feedDataStreamForTests, chunks);
  expect(got.data.length).toBe(want.data.length);
  expect(got.data === want.data).toBe(true);
  expect(want.data).not.toContain("\n..");
});
