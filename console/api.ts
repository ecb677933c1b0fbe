/**
 * A small typed layer over the Mailroom HTTP API. Every call carries the signed-in token, so
 * the service applies authorization, idempotency and rate limits exactly as for any client.
 * Every change carries its own Idempotency-Key, as the API asks of clients; buttons stay
 * disabled while their call runs, so one click is one change.
 */

export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export interface Paged<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  total_pages: number;
}

export type RiskLevel = "low" | "medium" | "high";
export interface MessageItem {
  id: string;
  thread_id: string | null;
  transport: "smtp" | "agent-json";
  direction: "inbound" | "outbound";
  from_address: string;
  to_address: string;
  subject: string;
  snippet: string;
  status: string;
  risk_level: RiskLevel | null;
  triage_label: string | null;
  created_at: string;
  labels: string[];
}
export interface Attachment {
  id: string;
  filename: string | null;
  mime_type: string;
  size: number;
}
export interface Message extends MessageItem {
  mailbox_id: string;
  message_id_header: string | null;
  text_body: string | null;
  html_body: string | null;
  extracted_text: string | null;
  headers: { key: string; value: string }[];
  suspicious_signals: string[];
  attachments: Attachment[];
  archived_at: string | null;
  reviewed_at: string | null;
  authentication?: { spf: string; dkim: string; dmarc: string } | null;
}
export interface DeliveryEvent {
  id: string;
  status: string;
  detail: string | null;
  created_at: string;
}
export interface Thread {
  id: string;
  subject: string;
  status: "open" | "archived";
  last_message_at: string;
  created_at: string;
  message_count?: number;
  labels?: string[];
}
export interface Label {
  id: string;
  name: string;
  color: string | null;
  created_at: string;
}
export interface Draft {
  id: string;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string | null;
  text_body: string | null;
  html_body: string | null;
  created_at: string;
  updated_at?: string;
}
export interface Mailbox {
  id: string;
  slug?: string;
  kind: "primary" | "agent";
  email_address: string;
  protocol_host: string;
  status: "active" | "disabled";
  created_at: string;
}
export interface Account {
  id: string;
  slug: string;
  display_name: string;
  status: string;
  created_at: string;
}
export type Whoami = { kind: "admin" } | { kind: "mailbox_key"; key_id: string; runtime: boolean; mailbox: Mailbox; account_id: string };
export interface ApiKey {
  id: string;
  name: string;
  scope: string;
  status: "active" | "revoked";
  created_at?: string;
  revoked_at?: string | null;
}
export interface Webhook {
  id: string;
  url: string;
  events: string[];
  status: "active" | "degraded";
  enabled?: boolean;
  consecutive_failures?: number;
  created_at?: string;
}
export interface DeliveryAttempt {
  id?: string;
  delivery_id: string;
  event?: string;
  attempt: number;
  trigger: string;
  status_code: number | null;
  response_body: string | null;
  request_body?: string | null;
  duration_ms: number | null;
  success: boolean;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  [k: string]: unknown;
}
export interface Policy {
  allow_outbound: boolean;
  allow_auto_reply: boolean;
  max_outbound_per_day: number;
  updated_at: string | null;
}
export interface Autopilot {
  mode: "observe" | "enforce";
  rules: unknown[];
  updated_at: string | null;
}
export interface AutopilotDecision {
  id: string;
  message_id: string;
  mode: "observe" | "enforce";
  matched_rules: string[];
  actions: { rule_id?: string; action?: unknown; outcome?: string; detail?: string }[];
  blocked: boolean;
  created_at: string;
}
export interface RuntimeEvent {
  id: string;
  mailbox_id: string;
  message_id: string | null;
  kind: string;
  detail: string;
  delivery_id: string | null;
  created_at: string;
}
export interface Suppression {
  id: string;
  address: string;
  reason: string | null;
  created_at: string;
}
export interface Binding {
  mailboxId?: string;
  deliveryUrl?: string;
  agentId: string;
  runtimeBaseUrl: string;
  permissionTier: string;
  policyMode: string;
  personaLabel: string;
  enabled: boolean;
  [k: string]: unknown;
}
export interface MailboxStats {
  messages: { total: number; unreviewed: number; [k: string]: unknown };
  threads: { total: number; open: number; archived: number };
  drafts: number | Record<string, unknown>;
}

export type MessageFilters = Partial<Record<"direction" | "status" | "triage_label" | "risk_level" | "query" | "thread_id" | "label", string>>;

type Query = Record<string, string | number | undefined>;

const qs = (q: Query = {}): string => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== "") p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
};

const enc = encodeURIComponent;

export class Api {
  constructor(readonly token: string) {}

  async call<T>(method: string, path: string, opts: { query?: Query; body?: unknown } = {}): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: "application/json" };
    if (method !== "GET") headers["idempotency-key"] = crypto.randomUUID();
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(opts.body);
    }
    const res = await fetch(path + qs(opts.query), { method, headers, body, cache: "no-store" });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (!res.ok) {
      const e = (parsed as ErrorBody | null)?.error;
      throw new ApiError(res.status, e?.code ?? "http_error", e?.message ?? `${res.status} ${res.statusText}`, e?.details ?? {});
    }
    return parsed as T;
  }

  /** A binary resource (an attachment, the raw message) as a Blob, for a download link. */
  async blob(path: string): Promise<Blob> {
    const res = await fetch(path, { headers: { authorization: `Bearer ${this.token}` }, cache: "no-store" });
    if (!res.ok) throw new ApiError(res.status, "http_error", `${res.status} ${res.statusText}`);
    return res.blob();
  }

  /** Who the signed-in token is (GET /v1/me), in the shape the screens use. */
  whoami = () =>
    this.call<{ principal: "admin" | "key"; key: { id: string; scope: string } | null; mailbox: Mailbox | null; account_id: string | null }>("GET", "/v1/me").then(
      (me): Whoami =>
        me.principal === "key" && me.key && me.mailbox && me.account_id
          ? { kind: "mailbox_key", key_id: me.key.id, runtime: me.key.scope === "runtime", mailbox: me.mailbox, account_id: me.account_id }
          : { kind: "admin" },
    );

  // Accounts and mailboxes (admin)
  accounts = (page = 1) => this.call<Paged<Account>>("GET", "/v1/accounts", { query: { page, limit: 50 } });
  createAccount = (slug: string, displayName: string) => this.call<{ account: Account; primary_mailbox: Mailbox }>("POST", "/v1/accounts", { body: { slug, displayName } });
  accountMailboxes = (accountId: string) => this.call<{ account: Account; mailboxes: Mailbox[] }>("GET", `/v1/accounts/${enc(accountId)}/mailboxes`);
  createMailbox = (accountId: string, slug: string) => this.call<{ mailbox: Mailbox }>("POST", `/v1/accounts/${enc(accountId)}/mailboxes`, { body: { slug } });
  mailbox = (id: string) => this.call<{ mailbox: Mailbox }>("GET", `/v1/mailboxes/${enc(id)}`).then((r) => r.mailbox);
  setMailboxEnabled = (id: string, enabled: boolean) => this.call<{ mailbox: { id: string; status: string } }>("POST", `/v1/mailboxes/${enc(id)}/${enabled ? "enable" : "disable"}`);
  stats = (id: string) => this.call<MailboxStats>("GET", `/v1/mailboxes/${enc(id)}/stats`);

  // Messages and threads
  messages = (mailboxId: string, page: number, limit: number, filters: MessageFilters) =>
    this.call<Paged<MessageItem>>("GET", `/v1/mailboxes/${enc(mailboxId)}/messages`, { query: { page, limit, ...filters } });
  search = (mailboxId: string, query: string, limit = 100) =>
    this.call<{ items: (MessageItem & { rank: number; highlight?: { subject?: string; text?: string[] } })[]; has_more: boolean }>("POST", `/v1/mailboxes/${enc(mailboxId)}/search`, { body: { query, limit } });
  message = (id: string) => this.call<{ message: Message }>("GET", `/v1/messages/${enc(id)}`).then((r) => r.message);
  delivery = (id: string) => this.call<{ events: DeliveryEvent[] }>("GET", `/v1/messages/${enc(id)}/delivery`).then((r) => r.events);
  archive = (id: string) => this.call<{ message_id: string; status: string }>("POST", `/v1/messages/${enc(id)}/archive`);
  review = (id: string) => this.call<{ message_id: string; status: string }>("POST", `/v1/messages/${enc(id)}/review`);
  reply = (id: string, textBody: string) => this.call<{ message: Message }>("POST", `/v1/messages/${enc(id)}/reply`, { body: { textBody } });
  thread = (id: string) => this.call<{ thread: Thread }>("GET", `/v1/threads/${enc(id)}`).then((r) => r.thread);
  threadMessages = (id: string) => this.call<Paged<MessageItem>>("GET", `/v1/threads/${enc(id)}/messages`, { query: { limit: 100 } });
  labels = (mailboxId: string) => this.call<{ items: Label[] }>("GET", `/v1/mailboxes/${enc(mailboxId)}/labels`).then((r) => r.items);
  createLabel = (mailboxId: string, name: string) => this.call<{ label: Label }>("POST", `/v1/mailboxes/${enc(mailboxId)}/labels`, { body: { name } }).then((r) => r.label);
  setLabel = (messageId: string, labelId: string, on: boolean) =>
    this.call<{ message_id: string; labels: string[] }>(on ? "POST" : "DELETE", `/v1/messages/${enc(messageId)}/labels/${enc(labelId)}`);

  // Drafts and the autopilot
  drafts = (mailboxId: string, page = 1) => this.call<Paged<Draft>>("GET", `/v1/mailboxes/${enc(mailboxId)}/drafts`, { query: { page, limit: 50 } });
  updateDraft = (id: string, fields: { to?: string[]; cc?: string[]; subject?: string | null; textBody?: string | null }) => this.call<{ draft: Draft }>("PUT", `/v1/drafts/${enc(id)}`, { body: fields });
  sendDraft = (id: string) => this.call<{ message: Message }>("POST", `/v1/drafts/${enc(id)}/send`);
  deleteDraft = (id: string) => this.call<{ draft: Draft }>("DELETE", `/v1/drafts/${enc(id)}`);
  autopilot = (mailboxId: string) => this.call<{ autopilot: Autopilot }>("GET", `/v1/mailboxes/${enc(mailboxId)}/autopilot`).then((r) => r.autopilot);
  putAutopilot = (mailboxId: string, body: { mode?: string; rules?: unknown[] }) => this.call<{ autopilot: Autopilot }>("PUT", `/v1/mailboxes/${enc(mailboxId)}/autopilot`, { body }).then((r) => r.autopilot);
  decisions = (mailboxId: string, limit = 50) => this.call<{ items: AutopilotDecision[] }>("GET", `/v1/mailboxes/${enc(mailboxId)}/autopilot/decisions`, { query: { limit } }).then((r) => r.items);

  // Settings
  policy = (mailboxId: string) => this.call<{ policy: Policy }>("GET", `/v1/mailboxes/${enc(mailboxId)}/policy`).then((r) => r.policy);
  putPolicy = (mailboxId: string, p: Partial<Omit<Policy, "updated_at">>) => this.call<{ policy: Policy }>("PUT", `/v1/mailboxes/${enc(mailboxId)}/policy`, { body: p }).then((r) => r.policy);
  suppressions = (accountId: string) => this.call<Paged<Suppression>>("GET", `/v1/accounts/${enc(accountId)}/suppressions`, { query: { limit: 100 } });
  addSuppression = (accountId: string, address: string, reason?: string) => this.call<{ suppression: Suppression }>("POST", `/v1/accounts/${enc(accountId)}/suppressions`, { body: reason ? { address, reason } : { address } });
  removeSuppression = (accountId: string, address: string) => this.call<unknown>("DELETE", `/v1/accounts/${enc(accountId)}/suppressions`, { query: { address } });
  binding = (mailboxId: string) => this.call<{ binding: Binding }>("GET", `/v1/mailboxes/${enc(mailboxId)}/agent-runtime-binding`).then((r) => r.binding);
  putBinding = (mailboxId: string, b: Partial<Binding>) =>
    this.call<{ binding: Binding; runtime_token?: string; signing_secret?: string }>("POST", `/v1/mailboxes/${enc(mailboxId)}/agent-runtime-binding`, { body: b });
  deleteBinding = (mailboxId: string) => this.call<{ binding: Binding }>("DELETE", `/v1/mailboxes/${enc(mailboxId)}/agent-runtime-binding`);
  runtimeEvents = (mailboxId: string) => this.call<{ items: RuntimeEvent[] }>("GET", "/v1/admin/agent-runtime-events", { query: { mailboxId, limit: 50 } }).then((r) => r.items);
  apiKeys = (mailboxId: string) => this.call<{ items: ApiKey[] }>("GET", `/v1/mailboxes/${enc(mailboxId)}/api-keys`).then((r) => r.items);
  issueKey = (mailboxId: string, name: string) => this.call<{ api_key: ApiKey; token: string }>("POST", `/v1/mailboxes/${enc(mailboxId)}/api-keys`, { body: { name, scope: "mailbox" } });
  revokeKey = (mailboxId: string, keyId: string) => this.call<{ api_key: ApiKey }>("POST", `/v1/mailboxes/${enc(mailboxId)}/api-keys/${enc(keyId)}/revoke`);

  // Webhooks (admin)
  webhooks = (mailboxId: string) => this.call<{ items: Webhook[] }>("GET", `/v1/mailboxes/${enc(mailboxId)}/webhooks`).then((r) => r.items);
  createWebhook = (mailboxId: string, url: string, events: string[]) => this.call<{ webhook: Webhook; signing_secret: string }>("POST", `/v1/mailboxes/${enc(mailboxId)}/webhooks`, { body: { url, events } });
  deliveries = (endpointId: string, limit = 50) => this.call<{ items: DeliveryAttempt[] }>("GET", `/v1/webhooks/${enc(endpointId)}/deliveries`, { query: { limit } }).then((r) => r.items);
  replay = (endpointId: string, deliveryId: string) => this.call<{ attempt: DeliveryAttempt }>("POST", `/v1/webhooks/${enc(endpointId)}/deliveries/${enc(deliveryId)}/replay`).then((r) => r.attempt);
  replayFailed = (endpointId: string, since?: string) => this.call<{ replayed: number }>("POST", `/v1/webhooks/${enc(endpointId)}/replay-failed`, { body: since ? { since } : {} });
}
