#!/usr/bin/env bun
/**
 * mailroom: the command line of the Mailroom API. Reads MAILROOM_URL and MAILROOM_TOKEN (the
 * admin token or a mailbox API key; --url and --token override them). Human tables by
 * default, --json for scripts; an API error prints its code and message and exits 1.
 */
import { readFileSync } from "node:fs";
import { collect, Mailroom, MailroomError, unwrap } from "./index.ts";

const USAGE = `mailroom <command> [options]

  me                                         who the token is (mailbox, key, tier)
  accounts create <slug> --name <display name>
  accounts show <accountId>
  accounts mailboxes <accountId>
  mailboxes create <accountId> <slug>
  mailboxes show|disable|enable [mailboxId]
  keys create <mailboxId> [--name <name>]
  keys list <mailboxId>
  keys revoke <mailboxId> <keyId>
  send --to <a,b> --subject <s> [--text <t> | --text-file <f>] [--html <h>] [--cc <a,b>] [--bcc <a,b>]
  reply <messageId> [--text <t> | --text-file <f>] [--html <h>] [--cc <a,b>] [--bcc <a,b>]
  messages list [--direction inbound|outbound] [--status <s>] [--query <q>] [--thread <id>] [--limit n] [--page n] [--all]
  messages show <messageId>
  messages raw <messageId>                   the original message bytes (message/rfc822) on stdout
  threads list [--status open|archived] [--query <q>] [--limit n] [--page n] [--all]
  threads show <threadId>
  drafts list
  drafts create [--to <a,b>] [--subject <s>] [--text <t>] [--html <h>]
  drafts update <draftId> [--to <a,b>] [--subject <s>] [--text <t>] [--html <h>]
  drafts send <draftId>
  drafts delete <draftId>
  search <query…> [--limit n]
  webhooks create <mailboxId> --url <url> [--events message.received,…]
  webhooks list <mailboxId>
  webhooks deliveries <endpointId> [--limit n]
  webhooks replay <endpointId> <deliveryId>
  tail [--since <eventId>]                   follows the mailbox's events live (Ctrl-C ends)
  mcp                                        the MCP server over stdio, for desktop agent clients

Options: --mailbox <id> (default: the key's mailbox), --json, --server <base URL>, --token <token>
Environment: MAILROOM_URL (default http://localhost:3000), MAILROOM_TOKEN`;

const BOOLEAN = new Set(["json", "all", "help"]);

export interface Parsed {
  positional: string[];
  flags: Record<string, string | true>;
}

export function parseArgs(argv: string[]): Parsed {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (eq >= 0) flags[name] = arg.slice(eq + 1);
    else if (BOOLEAN.has(name)) flags[name] = true;
    else {
      const value = argv[i + 1];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      flags[name] = value;
      i++;
    }
  }
  return { positional, flags };
}

class UsageError extends Error {}

/** Where the CLI writes; tests capture it. */
export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  raw: (bytes: Uint8Array) => void;
}

const stdio: Io = {
  out: (text) => void process.stdout.write(text.endsWith("\n") ? text : `${text}\n`),
  err: (text) => void process.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
  raw: (bytes) => void process.stdout.write(bytes),
};

/** Columns of rows, padded; long cells cut so a row stays on one line. */
export function table(rows: Record<string, unknown>[], columns: string[], max = 48): string {
  if (rows.length === 0) return "(none)";
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? "-" : Array.isArray(v) ? v.join(",") : typeof v === "object" ? JSON.stringify(v) : String(v);
    const one = s.replace(/[\r\n\t]+/g, " ");
    return one.length > max ? `${one.slice(0, max - 1)}…` : one;
  };
  const cells = rows.map((r) => columns.map((c) => cell(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join("\n");
}

const fields = (obj: Record<string, unknown>, keys?: string[]) =>
  (keys ?? Object.keys(obj))
    .map((k) => {
      const v = obj[k];
      return `${k}: ${v === null || v === undefined ? "-" : typeof v === "object" ? JSON.stringify(v) : String(v)}`;
    })
    .join("\n");

const list = (v: string | true | undefined): string[] | undefined =>
  typeof v === "string"
    ? v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;
const str = (v: string | true | undefined): string | undefined => (typeof v === "string" ? v : undefined);
const int = (v: string | true | undefined, name: string): number | undefined => {
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number`);
  return Number(v);
};

export async function run(argv: string[], io: Io = stdio, env: Record<string, string | undefined> = process.env): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parseArgs(argv);
  } catch (err) {
    io.err(`usage: ${(err as Error).message}`);
    return 2;
  }
  const { positional, flags } = parsed;
  const [group, command, ...rest] = positional;
  if (!group || flags.help || group === "help") {
    io.out(USAGE);
    return group ? 0 : 2;
  }
  const json = flags.json === true;
  if (group === "mcp") {
    const { runStdio } = await import("../../../src/mcp/stdio.ts");
    await runStdio({ ...env, MAILROOM_URL: str(flags.server) ?? env.MAILROOM_URL, MAILROOM_TOKEN: str(flags.token) ?? env.MAILROOM_TOKEN });
    return -1; // keeps serving until stdin closes
  }
  const mr = new Mailroom({ baseUrl: str(flags.server) ?? env.MAILROOM_URL, token: str(flags.token) ?? env.MAILROOM_TOKEN });
  const api = mr.api;
  const show = (data: unknown, human: () => string) => io.out(json ? JSON.stringify(data, null, 2) : human());
  const mailbox = async (given?: string): Promise<string> => {
    const explicit = given ?? str(flags.mailbox);
    if (explicit) return explicit;
    const me = await mr.me();
    if (!me.mailbox) throw new UsageError("the admin token names no mailbox: give --mailbox <id>");
    return me.mailbox.id;
  };
  const need = (value: string | undefined, what: string): string => {
    if (!value) throw new UsageError(`${what} is required (mailroom help)`);
    return value;
  };
  const textBody = () => str(flags.text) ?? (typeof flags["text-file"] === "string" ? readFileSync(flags["text-file"], "utf8") : undefined);
  const MESSAGE_COLUMNS = ["id", "created_at", "direction", "status", "risk_level", "triage_label", "from_address", "subject"];
  const sent = (r: any) => show(r, () => (r.disposition ? `held by the runtime policy: ${r.disposition}${r.draft ? ` (draft ${r.draft.id})` : ""}` : `${r.message.status} ${r.message.id}\nreply_to: ${r.reply_to}`));

  try {
    // search and reply take free arguments where other groups take a command.
    const key = group === "search" || group === "reply" || group === "send" || group === "tail" || group === "me" ? group : `${group} ${command ?? ""}`.trim();
    switch (key) {
      case "me": {
        const me = await mr.me();
        show(me, () => (me.mailbox ? fields({ principal: me.principal, mailbox: me.mailbox.id, email_address: me.mailbox.email_address, protocol_host: me.mailbox.protocol_host, status: me.mailbox.status, key: me.key?.name, tier: me.binding?.permission_tier ?? null }) : "admin token"));
        break;
      }
      case "accounts create": {
        const r = await unwrap(api.POST("/v1/accounts", { body: { slug: need(rest[0], "<slug>"), displayName: str(flags.name) ?? rest[0]! } }));
        show(r, () => `${fields(r.account, ["id", "slug", "display_name", "status"])}\nprimary mailbox: ${r.primary_mailbox.id} ${r.primary_mailbox.email_address}`);
        break;
      }
      case "accounts show": {
        const r = await unwrap(api.GET("/v1/accounts/{accountId}", { params: { path: { accountId: need(rest[0], "<accountId>") } } }));
        show(r, () => fields(r.account));
        break;
      }
      case "accounts mailboxes": {
        const r = await unwrap(api.GET("/v1/accounts/{accountId}/mailboxes", { params: { path: { accountId: need(rest[0], "<accountId>") } } }));
        show(r, () => table(r.mailboxes, ["id", "slug", "kind", "status", "email_address", "protocol_host"], 60));
        break;
      }
      case "mailboxes create": {
        const r = await unwrap(api.POST("/v1/accounts/{accountId}/mailboxes", { params: { path: { accountId: need(rest[0], "<accountId>") } }, body: { slug: need(rest[1], "<slug>") } }));
        show(r, () => fields(r.mailbox));
        break;
      }
      case "mailboxes show": {
        const r = await unwrap(api.GET("/v1/mailboxes/{mailboxId}", { params: { path: { mailboxId: await mailbox(rest[0]) } } }));
        show(r, () => fields(r.mailbox));
        break;
      }
      case "mailboxes disable":
      case "mailboxes enable": {
        const path = command === "disable" ? "/v1/mailboxes/{mailboxId}/disable" : "/v1/mailboxes/{mailboxId}/enable";
        const r = await unwrap(api.POST(path, { params: { path: { mailboxId: await mailbox(rest[0]) } } }));
        show(r, () => fields(r.mailbox));
        break;
      }
      case "keys create": {
        const r = await unwrap(api.POST("/v1/mailboxes/{mailboxId}/api-keys", { params: { path: { mailboxId: need(rest[0], "<mailboxId>") } }, body: { name: str(flags.name) ?? "cli", scope: "mailbox" } }));
        show(r, () => `${fields(r.api_key)}\ntoken: ${r.token}\n(shown once: keep it now)`);
        break;
      }
      case "keys list": {
        const r = await unwrap(api.GET("/v1/mailboxes/{mailboxId}/api-keys", { params: { path: { mailboxId: need(rest[0], "<mailboxId>") } } }));
        show(r, () => table((r as any).items ?? (r as any).api_keys ?? [], ["id", "name", "scope", "status", "created_at"]));
        break;
      }
      case "keys revoke": {
        const r = await unwrap(api.POST("/v1/mailboxes/{mailboxId}/api-keys/{keyId}/revoke", { params: { path: { mailboxId: need(rest[0], "<mailboxId>"), keyId: need(rest[1], "<keyId>") } } }));
        show(r, () => fields(r.api_key));
        break;
      }
      case "send": {
        const r = await unwrap(
          api.POST("/v1/mailboxes/{mailboxId}/send", {
            params: { path: { mailboxId: await mailbox() } },
            body: { to: list(flags.to)?.length ? list(flags.to)! : [need(undefined, "--to")], cc: list(flags.cc), bcc: list(flags.bcc), subject: need(str(flags.subject), "--subject"), textBody: textBody(), htmlBody: str(flags.html) },
          }),
        );
        sent(r);
        break;
      }
      case "reply": {
        const r = await unwrap(api.POST("/v1/messages/{messageId}/reply", { params: { path: { messageId: need(command, "<messageId>") } }, body: { textBody: textBody(), htmlBody: str(flags.html), cc: list(flags.cc), bcc: list(flags.bcc) } }));
        sent(r);
        break;
      }
      case "messages list": {
        const query = { direction: str(flags.direction) as never, status: str(flags.status) as never, query: str(flags.query), thread_id: str(flags.thread), triage_label: str(flags.triage) as never, risk_level: str(flags.risk) as never, limit: int(flags.limit, "limit") };
        const id = await mailbox();
        if (flags.all) {
          const items = await collect(mr.messages(id, { ...query, limit: query.limit ?? 100 }));
          show({ items }, () => table(items, MESSAGE_COLUMNS));
        } else {
          const r = await unwrap(api.GET("/v1/mailboxes/{mailboxId}/messages", { params: { path: { mailboxId: id }, query: { ...query, page: int(flags.page, "page") } } }));
          show(r, () => `${table(r.items, MESSAGE_COLUMNS)}\npage ${r.page} of ${r.total_pages} (${r.total} messages)`);
        }
        break;
      }
      case "messages show": {
        const { message: m } = await unwrap(api.GET("/v1/messages/{messageId}", { params: { path: { messageId: need(rest[0], "<messageId>") } } }));
        show({ message: m }, () =>
          [
            fields(m as never, ["id", "thread_id", "created_at", "direction", "transport", "status", "from_address", "to_address", "subject", "risk_level", "triage_label", "suspicious_signals", "labels"]),
            m.attachments.length ? `attachments:\n${table(m.attachments as never, ["id", "filename", "mime_type", "size"])}` : "",
            "",
            m.text_body ?? m.extracted_text ?? "",
          ]
            .filter((x, i) => x !== "" || i === 2)
            .join("\n"),
        );
        break;
      }
      case "messages raw": {
        const r = await api.GET("/v1/messages/{messageId}/raw", { params: { path: { messageId: need(rest[0], "<messageId>") } }, parseAs: "arrayBuffer" });
        if (!r.response.ok) throw MailroomError.from(r.response, r.error);
        io.raw(new Uint8Array(r.data as ArrayBuffer));
        break;
      }
      case "threads list": {
        const query = { status: str(flags.status) as never, query: str(flags.query), limit: int(flags.limit, "limit") };
        const id = await mailbox();
        const columns = ["id", "status", "last_message_at", "message_count", "subject"];
        if (flags.all) {
          const items = await collect(mr.threads(id, { ...query, limit: query.limit ?? 100 }));
          show({ items }, () => table(items, columns));
        } else {
          const r = await unwrap(api.GET("/v1/mailboxes/{mailboxId}/threads", { params: { path: { mailboxId: id }, query: { ...query, page: int(flags.page, "page") } } }));
          show(r, () => `${table(r.items, columns)}\npage ${r.page} of ${r.total_pages} (${r.total} threads)`);
        }
        break;
      }
      case "threads show": {
        const threadId = need(rest[0], "<threadId>");
        const { thread } = await unwrap(api.GET("/v1/threads/{threadId}", { params: { path: { threadId } } }));
        const messages = await collect(mr.threadMessages(threadId));
        show({ thread, messages }, () => `${fields(thread)}\n\n${table(messages, MESSAGE_COLUMNS)}`);
        break;
      }
      case "drafts list": {
        const items = await collect(mr.drafts(await mailbox()));
        show({ items }, () => table(items, ["id", "updated_at", "to", "subject"]));
        break;
      }
      case "drafts create": {
        const r = await unwrap(api.POST("/v1/mailboxes/{mailboxId}/drafts", { params: { path: { mailboxId: await mailbox() } }, body: { to: list(flags.to), cc: list(flags.cc), bcc: list(flags.bcc), subject: str(flags.subject), textBody: textBody(), htmlBody: str(flags.html) } }));
        show(r, () => fields(r.draft, ["id", "to", "subject", "created_at"]));
        break;
      }
      case "drafts update": {
        const body = Object.fromEntries(Object.entries({ to: list(flags.to), cc: list(flags.cc), bcc: list(flags.bcc), subject: str(flags.subject), textBody: textBody(), htmlBody: str(flags.html) }).filter(([, v]) => v !== undefined));
        const r = await unwrap(api.PUT("/v1/drafts/{draftId}", { params: { path: { draftId: need(rest[0], "<draftId>") } }, body }));
        show(r, () => fields(r.draft, ["id", "to", "subject", "updated_at"]));
        break;
      }
      case "drafts send": {
        sent(await unwrap(api.POST("/v1/drafts/{draftId}/send", { params: { path: { draftId: need(rest[0], "<draftId>") } } })));
        break;
      }
      case "drafts delete": {
        const r = await unwrap(api.DELETE("/v1/drafts/{draftId}", { params: { path: { draftId: need(rest[0], "<draftId>") } } }));
        show(r, () => `deleted ${r.draft.id}`);
        break;
      }
      case "search": {
        const q = positional.slice(1).join(" ");
        const r = await unwrap(api.POST("/v1/mailboxes/{mailboxId}/search", { params: { path: { mailboxId: await mailbox() } }, body: { query: need(q, "<query>"), limit: int(flags.limit, "limit") } }));
        show(r, () => `${table(r.items, ["id", "created_at", "rank", "from_address", "subject"])}${r.has_more ? "\n(more: raise --limit)" : ""}`);
        break;
      }
      case "webhooks create": {
        const events = (list(flags.events) ?? ["message.received", "message.processed", "message.sent", "protocol.response.created"]) as never;
        const r = await unwrap(api.POST("/v1/mailboxes/{mailboxId}/webhooks", { params: { path: { mailboxId: need(rest[0], "<mailboxId>") } }, body: { url: need(str(flags.url), "--url"), events } }));
        show(r, () => `${fields(r.webhook, ["id", "url", "events", "status"])}\nsigning_secret: ${r.signing_secret}\n(shown once: keep it now)`);
        break;
      }
      case "webhooks list": {
        const r = await unwrap(api.GET("/v1/mailboxes/{mailboxId}/webhooks", { params: { path: { mailboxId: need(rest[0], "<mailboxId>") } } }));
        show(r, () => table((r as any).items, ["id", "url", "events", "status", "enabled"], 60));
        break;
      }
      case "webhooks deliveries": {
        const r = await unwrap(api.GET("/v1/webhooks/{endpointId}/deliveries", { params: { path: { endpointId: need(rest[0], "<endpointId>") }, query: { limit: int(flags.limit, "limit") } } }));
        show(r, () => table((r as any).items, ["delivery_id", "attempt", "trigger", "status_code", "success", "duration_ms", "started_at", "error"]));
        break;
      }
      case "webhooks replay": {
        const r = await unwrap(api.POST("/v1/webhooks/{endpointId}/deliveries/{deliveryId}/replay", { params: { path: { endpointId: need(rest[0], "<endpointId>"), deliveryId: need(rest[1], "<deliveryId>") } } }));
        show(r, () => fields((r as any).attempt ?? r));
        break;
      }
      case "tail": {
        const id = await mailbox();
        const stop = new AbortController();
        process.once("SIGINT", () => stop.abort());
        process.once("SIGTERM", () => stop.abort());
        const since = int(flags.since, "since") ?? Number((await mr.me().catch(() => null))?.latest_event_id ?? 0);
        for await (const e of mr.events(id, { lastEventId: since, signal: stop.signal, gaps: true })) {
          if (json) io.out(JSON.stringify(e));
          else if ("from" in e) io.out(`-- events ${e.from}..${e.to} are no longer stored --`);
          else {
            const p = e.payload as Record<string, unknown>;
            io.out(`${e.id}  ${e.created_at}  ${e.event.padEnd(26)}  ${[p.direction, p.status, p.from_address, JSON.stringify(p.subject ?? p.body ?? "")].filter((x) => x !== undefined).join("  ")}`);
          }
        }
        break;
      }
      default:
        throw new UsageError(`unknown command "${positional.join(" ")}" (mailroom help)`);
    }
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`usage: ${err.message}`);
      return 2;
    }
    if (err instanceof MailroomError) {
      if (json) io.err(JSON.stringify({ error: { status: err.status, code: err.code, message: err.message, details: err.details, request_id: err.requestId } }));
      else io.err(`error: ${err.code}: ${err.message}${Object.keys(err.details).length ? ` ${JSON.stringify(err.details)}` : ""}`);
      return 1;
    }
    io.err(`error: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

if (import.meta.main) {
  const code = await run(process.argv.slice(2));
  if (code >= 0) process.exit(code);
}
