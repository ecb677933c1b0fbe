import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { seedAccount, startTestService, uniqueSlug, waitFor, type TestService } from "./harness.ts";
import { rfc822, smtpSend, waitForMessage } from "./mail-support.ts";
import { startReceiver } from "./webhook-support.ts";

/** The mailroom CLI, spawned as a process against the started service; its output parsed. */
const ROOT = join(import.meta.dir, "..");
const CLI = join(ROOT, "clients", "typescript", "src", "cli.ts");

let t: TestService;
let s: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  t = await startTestService();
  s = await seedAccount(t);
}, 180_000);
afterAll(() => t.stop());

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function mailroom(args: string[], token: string = s.agentKey.token, cmd: string[] = [process.execPath, CLI]): Promise<Run> {
  const proc = Bun.spawn([...cmd, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? "", MAILROOM_URL: t.url, MAILROOM_TOKEN: token }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

const json = async (args: string[], token?: string) => {
  const r = await mailroom([...args, "--json"], token);
  if (r.code !== 0) throw new Error(`mailroom ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};

describe("mailroom CLI", () => {
  test("admin: accounts, mailboxes and keys; the new key works", async () => {
    const slug = uniqueSlug("cli");
    const created = await json(["accounts", "create", slug, "--name", "CLI Test"], t.admin);
    expect(created.account.slug).toBe(slug);
    const shown = await mailroom(["accounts", "show", created.account.id], t.admin);
    expect(shown.stdout).toContain(`slug: ${slug}`);
    const mb = await json(["mailboxes", "create", created.account.id, "helper"], t.admin);
    expect(mb.mailbox.email_address).toBe(`helper.${slug}@mail.localhost`);
    const table = await mailroom(["accounts", "mailboxes", created.account.id], t.admin);
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+SLUG\s+KIND\s+STATUS/);
    expect(table.stdout).toContain("helper");
    const key = await json(["keys", "create", mb.mailbox.id, "--name", "cli key"], t.admin);
    expect(key.token).toStartWith("svc_");
    expect((await mailroom(["keys", "list", mb.mailbox.id], t.admin)).stdout).toContain("cli key");
    const me = await mailroom(["me"], key.token);
    expect(me.stdout).toContain(`email_address: helper.${slug}@mail.localhost`);
    expect((await json(["mailboxes", "disable"], key.token)).mailbox.status).toBe("disabled");
    expect((await json(["mailboxes", "enable"], key.token)).mailbox.status).toBe("active");
    expect((await json(["keys", "revoke", mb.mailbox.id, key.api_key.id], t.admin)).api_key.status).toBe("revoked");
    const refused = await mailroom(["me"], key.token);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toStartWith("error: invalid_token:");
  });

  test("send, messages list/show/raw, reply, threads, search", async () => {
    const raw = rfc822({ From: "Alice <alice@example.com>", To: s.agent.email_address, Subject: "CLI inbound invoice", "Message-ID": `<${crypto.randomUUID()}@example.com>` }, "Please pay invoice 77.\r\n");
    await smtpSend(t.service.smtpPort, { from: "alice@example.com", to: [s.agent.email_address] }, raw);
    const list = await json(["messages", "list", "--direction", "inbound"]);
    const id = list.items[0].id;
    expect(list.items[0].subject).toBe("CLI inbound invoice");
    await waitForMessage(t, id, ["processed"], 30_000);

    const human = await mailroom(["messages", "list"]);
    expect(human.code).toBe(0);
    expect(human.stdout.split("\n")[0]).toMatch(/^ID\s+CREATED_AT\s+DIRECTION\s+STATUS\s+RISK_LEVEL\s+TRIAGE_LABEL\s+FROM_ADDRESS\s+SUBJECT/);
    expect(human.stdout).toContain("CLI inbound invoice");
    expect(human.stdout).toMatch(/page 1 of 1 \(1 messages\)/);

    const shown = await mailroom(["messages", "show", id]);
    expect(shown.stdout).toContain("subject: CLI inbound invoice");
    expect(shown.stdout).toContain("Please pay invoice 77.");
    expect((await json(["messages", "show", id])).message.risk_level).toBeString();
    const bytes = await mailroom(["messages", "raw", id]);
    expect(bytes.stdout).toBe(raw);

    const sent = await json(["send", "--to", "bob@example.com,carol@example.com", "--subject", "From the CLI", "--text", "Hi both"]);
    expect(["sent", "queued"]).toContain(sent.message.status);
    expect(sent.reply_to).toContain("+reply-");
    const replied = await mailroom(["reply", id, "--text", "Paid."]);
    expect(replied.code).toBe(0);
    expect(replied.stdout).toMatch(/^(sent|queued) [0-9a-f-]{36}\nreply_to: /);

    const all = await json(["messages", "list", "--all", "--limit", "1"]);
    expect(all.items).toHaveLength(3);
    const threads = await json(["threads", "list"]);
    const thread = threads.items.find((x: any) => x.subject === "CLI inbound invoice");
    expect(thread.message_count).toBe(2);
    const shownThread = await json(["threads", "show", thread.id]);
    expect(shownThread.messages.map((m: any) => m.id)[0]).toBe(id);
    const found = await json(["search", "invoice", "from:alice"]);
    expect(found.items.map((m: any) => m.id)).toEqual([id]);
  });

  test("drafts: create, list, update, send, delete", async () => {
    const created = await json(["drafts", "create", "--to", "dan@example.com", "--subject", "Later"]);
    const draftId = created.draft.id;
    expect((await json(["drafts", "list"])).items.map((d: any) => d.id)).toContain(draftId);
    expect((await json(["drafts", "update", draftId, "--text", "Body now"])).draft.text_body).toBe("Body now");
    expect(["sent", "queued"]).toContain((await json(["drafts", "send", draftId])).message.status);
    const other = await json(["drafts", "create"]);
    expect((await json(["drafts", "delete", other.draft.id])).draft.id).toBe(other.draft.id);
  });

  test("webhooks: create, list, deliveries, replay", async () => {
    const receiver = startReceiver();
    try {
      const created = await json(["webhooks", "create", s.agent.id, "--url", receiver.url, "--events", "message.sent"], t.admin);
      expect(created.signing_secret).toMatch(/^[0-9a-f]{64}$/);
      expect((await mailroom(["webhooks", "list", s.agent.id], t.admin)).stdout).toContain(receiver.url);
      await json(["send", "--to", "erin@example.com", "--subject", "Hooked", "--text", "x"]);
      await receiver.waitFor((rs) => rs.length >= 1, 20_000);
      const history = await waitFor(async () => {
        const h = await json(["webhooks", "deliveries", created.webhook.id], t.admin);
        return h.items.length > 0 ? h : undefined;
      }, "a recorded attempt");
      expect(history.items[0].success).toBe(true);
      const replay = await json(["webhooks", "replay", created.webhook.id, history.items[0].delivery_id], t.admin);
      expect(replay.attempt.trigger).toBe("replay");
    } finally {
      receiver.stop();
    }
  });

  test("tail follows the mailbox's events live", async () => {
    const seed = await seedAccount(t);
    const proc = Bun.spawn([process.execPath, CLI, "tail", "--json"], { cwd: ROOT, env: { PATH: process.env.PATH ?? "", MAILROOM_URL: t.url, MAILROOM_TOKEN: seed.agentKey.token }, stdout: "pipe", stderr: "pipe" });
    const lines: any[] = [];
    const reader = (async () => {
      let buffer = "";
      for await (const chunk of proc.stdout as unknown as AsyncIterable<Uint8Array>) {
        buffer += new TextDecoder().decode(chunk);
        let nl: number;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          lines.push(JSON.parse(buffer.slice(0, nl)));
          buffer = buffer.slice(nl + 1);
        }
      }
    })();
    try {
      // tail starts from the latest event: give it time to connect, then deliver.
      await Bun.sleep(1500);
      const raw = rfc822({ From: "alice@example.com", To: seed.agent.email_address, Subject: "Tailed", "Message-ID": `<${crypto.randomUUID()}@example.com>` });
      await smtpSend(t.service.smtpPort, { from: "alice@example.com", to: [seed.agent.email_address] }, raw);
      await waitFor(async () => (lines.some((l) => l.event === "message.processed") ? true : undefined), "tail to print message.processed", 30_000);
      expect(lines.map((l) => l.event).slice(0, 2)).toEqual(["message.received", "message.processed"]);
      expect(lines[0].payload.subject).toBe("Tailed");
    } finally {
      proc.kill("SIGINT");
      await proc.exited;
      await reader.catch(() => {});
    }
  });

  test("errors print the code and message and exit non-zero; --json prints the envelope; usage errors exit 2", async () => {
    const seed = await seedAccount(t);
    await t.api("POST", `/v1/accounts/${seed.account.id}/suppressions`, { body: { address: "gone@example.com" } });
    const refused = await mailroom(["send", "--to", "gone@example.com", "--subject", "x", "--text", "y"], seed.agentKey.token);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toStartWith("error: address_suppressed: ");
    const asJson = await mailroom(["send", "--to", "gone@example.com", "--subject", "x", "--text", "y", "--json"], seed.agentKey.token);
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stderr).error).toMatchObject({ status: 409, code: "address_suppressed", details: { address: "gone@example.com" } });
    const missing = await mailroom(["messages", "show", "00000000-0000-7000-8000-000000000000"], t.admin);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toStartWith("error: not_found:");
    const usage = await mailroom(["send", "--subject", "x"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--to is required");
    expect((await mailroom(["frobnicate"])).code).toBe(2);
    const help = await mailroom(["help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("mailroom <command>");
  });

  test("runs through the root package script", async () => {
    const r = await mailroom(["run", "--silent", "mailroom", "me", "--json"], s.agentKey.token, [process.execPath]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).mailbox.id).toBe(s.agent.id);
  });
});
