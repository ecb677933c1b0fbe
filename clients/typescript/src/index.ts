import { createApi, unwrap, type Fetch, type MailroomApi, type MailroomClientOptions } from "./client.ts";
import { mailboxEvents, type EventGap, type EventStreamOptions, type MailboxEvent } from "./events.ts";
import { paginate } from "./pagination.ts";
import type { paths } from "./schema.d.ts";

export { createApi, unwrap, type Fetch, type MailroomApi, type MailroomClientOptions } from "./client.ts";
export { isMailroomError, MailroomError, WebhookVerificationError, type ErrorCode } from "./errors.ts";
export { mailboxEvents, sseMessages, type EventGap, type EventStreamOptions, type MailboxEvent } from "./events.ts";
export { collect, paginate, type Page } from "./pagination.ts";
export { verifyWebhook, type HeaderSource, type VerifiedWebhook, type VerifyOptions } from "./webhooks.ts";
export type { components, operations, paths } from "./schema.d.ts";

type Json<P extends keyof paths, M extends keyof paths[P], S extends number = 200> = paths[P][M] extends { responses: { [K in S]: { content: { "application/json": infer B } } } } ? B : never;
type Query<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export type Me = Json<"/v1/me", "get">;
export type MessageListItem = Json<"/v1/mailboxes/{mailboxId}/messages", "get">["items"][number];
export type Message = Json<"/v1/messages/{messageId}", "get">["message"];
export type Thread = Json<"/v1/mailboxes/{mailboxId}/threads", "get">["items"][number];
export type Draft = Json<"/v1/mailboxes/{mailboxId}/drafts", "get">["items"][number];
export type MessageQuery = Omit<Query<"/v1/mailboxes/{mailboxId}/messages", "get">, "page">;
export type ThreadQuery = Omit<Query<"/v1/mailboxes/{mailboxId}/threads", "get">, "page">;

/**
 * The typed API (`api`, generated from the OpenAPI document) with the conveniences that earn
 * their place: list iterators, the event stream, and the caller's identity.
 */
export class Mailroom {
  readonly api: MailroomApi;
  readonly baseUrl: string;
  readonly token: string | undefined;
  private readonly fetcher: Fetch | undefined;

  constructor(options: MailroomClientOptions = {}) {
    const env = typeof process !== "undefined" ? process.env : {};
    this.baseUrl = (options.baseUrl ?? env.MAILROOM_URL ?? "http://localhost:3000").replace(/\/+$/, "");
    this.token = options.token ?? env.MAILROOM_TOKEN;
    this.fetcher = options.fetch;
    this.api = createApi({ ...options, baseUrl: this.baseUrl, token: this.token });
  }

  /** Who the token is: for a mailbox key, its mailbox, binding tier and latest event. */
  me(): Promise<Me> {
    return unwrap(this.api.GET("/v1/me"));
  }

  /** Every message of a mailbox matching the filters, newest first, page by page. */
  messages(mailboxId: string, query: MessageQuery = {}): AsyncGenerator<MessageListItem> {
    return paginate((page) => unwrap(this.api.GET("/v1/mailboxes/{mailboxId}/messages", { params: { path: { mailboxId }, query: { ...query, page } } })));
  }

  /** Every thread of a mailbox matching the filters, by most recent message. */
  threads(mailboxId: string, query: ThreadQuery = {}): AsyncGenerator<Thread> {
    return paginate((page) => unwrap(this.api.GET("/v1/mailboxes/{mailboxId}/threads", { params: { path: { mailboxId }, query: { ...query, page } } })));
  }

  /** Every message of a thread, oldest first. */
  threadMessages(threadId: string, limit = 100) {
    return paginate((page) => unwrap(this.api.GET("/v1/threads/{threadId}/messages", { params: { path: { threadId }, query: { page, limit } } })));
  }

  /** Every draft of a mailbox, most recently changed first. */
  drafts(mailboxId: string, limit = 100) {
    return paginate((page) => unwrap(this.api.GET("/v1/mailboxes/{mailboxId}/drafts", { params: { path: { mailboxId }, query: { page, limit } } })));
  }

  /** The mailbox's event stream, resuming after `lastEventId` and reconnecting with Last-Event-ID. */
  events(mailboxId: string, options: Omit<EventStreamOptions, "baseUrl" | "token" | "fetch"> = {}): AsyncGenerator<MailboxEvent | EventGap> {
    return mailboxEvents(mailboxId, { ...options, baseUrl: this.baseUrl, token: this.token, fetch: this.fetcher });
  }
}
