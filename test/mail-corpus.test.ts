import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { seedAccount, startTestService, type TestService } from "./harness.ts";
import { waitForMessage } from "./mail-support.ts";

const DIR = join(import.meta.dir, "fixtures", "mime");
const corpus = readdirSync(DIR).filter((f) => f.endsWith(".eml"));

let t: TestService;
let seed: Awaited<ReturnType<typeof seedAccount>>;
beforeAll(async () => {
  // A tight parse budget, so the pathological message below runs out of it.
  t = await startTestService({ PARSE_TIMEOUT_MS: "300" });
  seed = await seedAccount(t);
});
afterAll(() => t.stop());

async function deliver(raw: Uint8Array): Promise<string> {
  const res = await fetch(`${t.url}/v1/inbound/email?to=${encodeURIComponent(seed.agent.email_address)}`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.admin}`, "content-type": "message/rfc822" },
    body: raw,
  });
  const body = (await res.json()) as { message_ids?: string[] };
  if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${JSON.stringify(body)}`);
  return body.message_ids![0]!;
}

async function rawOf(id: string): Promise<Buffer> {
  const res = await fetch(`${t.url}/v1/messages/${id}/raw`, { headers: { authorization: `Bearer ${t.admin}` } });
  return Buffer.from(await res.arrayBuffer());
}

test.each(corpus.filter((f) => f.length > 0 && readFileSync(join(DIR, f)).length > 0))("%s is stored byte for byte, processed and listed", async (file) => {
  const raw = new Uint8Array(readFileSync(join(DIR, file)));
  const id = await deliver(raw);
  const message = await waitForMessage(t, id);
  expect(message.status).toBe("processed");
  expect(message.thread_id).not.toBeNull();
  expect((await rawOf(id)).equals(Buffer.from(raw))).toBe(true);
  for (const h of message.headers) expect(h.value).not.toMatch(/[\r\n\0]/);
  const list = await t.api("GET", `/v1/mailboxes/${seed.agent.id}/messages?limit=100`);
  expect(list.body.items.some((m: { id: string }) => m.id === id)).toBe(true);
});

test("a message over the parse budget is kept raw and listed with parse_failed", async () => {
  // 3,000 nested multipart levels of 200 parts each keeps the parser busy past 300 ms.
  const parts: string[] = ["From: deep@example.com", `To: ${seed.agent.email_address}`, "Subject: Too deep", 'Content-Type: multipart/mixed; boundary="b0"', ""];
  for (let i = 0; i < 1999; i++) {
    parts.push(`--b${i}`, `Content-Type: multipart/mixed; boundary="b${i + 1}"`, "");
  }
  parts.push("--b1999", "Content-Type: text/plain", "", "x".repeat(5_000_000), "");
  const raw = new TextEncoder().encode(parts.join("\r\n"));
  const id = await deliver(raw);
  const message = await waitForMessage(t, id, ["processed"], 20_000);
  expect(message.suspicious_signals).toContain("parse_failed");
  expect(message.risk_level).toBe("medium");
  expect(message.subject).toBe("Too deep");
  expect(message.from_address).toBe("deep@example.com");
  expect((await rawOf(id)).equals(Buffer.from(raw))).toBe(true);
});
