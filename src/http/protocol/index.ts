import { and, asc, eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import { ownProtocolMessage } from "../../protocol/records.ts";
import type { Db } from "../../../db/client.ts";
import { accounts, actions, protocolResponses } from "../../../db/schema/index.ts";
import type { Principal } from "../../auth/authenticate.ts";
import { AppError, notFound, validationError } from "../../errors.ts";
import { checkTargetUrl, type TargetPolicy } from "../../net/target-check.ts";
import { a2aAgentCard, agentJson, type DiscoveryAction } from "../../protocol/discovery.ts";
import { hostName, parseHost, requestOrigin, type ProtocolHosts } from "../../protocol/hosts.ts";
import type { DerivedContext, MutationHooks } from "../pipeline.ts";
import { Accepted, InboxBody, InboxParams, messageView, ProtocolMessage, ProtocolResponse, RespondBody, responseView } from "./model.ts";

const MAX_METADATA_BYTES = 16 * 1024;
const Document = t.Object({}, { additionalProperties: true });

/**
 * The agent protocol, served on every mailbox's `protocol_host` (the Host header picks the
 * mailbox): discovery, the inbox, status, respond and responses. README "Agent protocol".
 */
export function protocolRoutes(deps: { mailboxes: Mailboxes; db: Db; hosts: ProtocolHosts; targets: TargetPolicy; version: string }, mutation: MutationHooks) {
  const { mailboxes, db, hosts } = deps;

  const hostMailbox = async (request: Request) => {
    const header = request.headers.get("host");
    // RFC 9112 §3.2: a Host that is not host[:port] (a port past 65535, say) is a bad request.
    if (!parseHost(header)) throw validationError("headers.host: must be host[:port] with a port of 1-65535", [{ path: "headers.host", message: "must be host[:port] with a port of 1-65535" }]);
    const id = await hosts.mailboxOf(header);
    if (!id) throw new AppError("not_found", `no agent is served at host ${hostName(header)}`);
    return id;
  };
  // Only called once hostMailbox has accepted the Host header.
  const origin = (request: Request) => requestOrigin(request) ?? "";

  const discovery = async (request: Request) => {
    const mailbox = await mailboxes.get(await hostMailbox(request));
    const [account] = await db.select({ displayName: accounts.displayName }).from(accounts).where(eq(accounts.id, mailbox.accountId)).limit(1);
    const rows = await db.select().from(actions).where(and(eq(actions.mailboxId, mailbox.id), eq(actions.enabled, true))).orderBy(asc(actions.createdAt), asc(actions.name));
    const list: DiscoveryAction[] = rows.map((a) => ({ name: a.name, description: a.description, parameterSchema: a.parameterSchema as object, responseSchema: a.responseSchema as object }));
    const who = { id: mailbox.id, slug: mailbox.slug, emailAddress: mailbox.emailAddress, protocolHost: mailbox.protocolHost, status: mailbox.status, displayName: account?.displayName ?? null };
    return { who, list, origin: origin(request) };
  };

  /** The message at this host, and who the caller is to it; a stranger learns nothing (404). */
  const locate = async (request: Request, principal: Principal | null, messageId: string) => {
    const recipient = await hostMailbox(request);
    const found = await ownProtocolMessage(db, recipient, messageId);
    if (!found) throw notFound("protocol message", messageId);
    let role: "recipient" | "sender" | "admin" | null = null;
    if (principal?.kind === "admin") role = "admin";
    else if (principal?.kind === "key" && principal.mailboxId === recipient) role = "recipient";
    else if (principal?.kind === "key" && principal.mailboxId === found.protocol.senderMailboxId) role = "sender";
    if (!role) throw notFound("protocol message", messageId);
    return { recipient, ...found, role };
  };
  const responsesOf = (messageId: string, from: Pick<Db, "select"> = db) => from.select().from(protocolResponses).where(eq(protocolResponses.protocolMessageId, messageId)).orderBy(asc(protocolResponses.createdAt), asc(protocolResponses.id));

  return new Elysia({ name: "agent-protocol" })
    .get(
      "/.well-known/agent.json",
      async ({ request }) => {
        const d = await discovery(request);
        return agentJson(d.who, d.list, d.origin, deps.version);
      },
      { response: { 200: Document }, detail: { summary: "Discovery document (agent.json)", description: "Served at the mailbox's protocol_host: the mailbox, its enabled actions with their schemas, the endpoints and how to authenticate.", tags: ["Agent protocol"] } },
    )
    .get(
      "/.well-known/agent-card.json",
      async ({ request }) => {
        const d = await discovery(request);
        return a2aAgentCard(d.who, d.list, d.origin, deps.version);
      },
      { response: { 200: Document }, detail: { summary: "A2A agent card", description: "The same agent as an A2A Agent Card (v1 fields, with the 0.3 ones for older readers).", tags: ["Agent protocol"] } },
    )
    .get(
      "/.agent/inbox/:messageId",
      async (ctx) => {
        const { request, params } = ctx;
        const principal = (ctx as unknown as DerivedContext).principal;
        const { recipient } = await locate(request, principal, params.messageId);
        // The status and the responses from one snapshot: an answer commits both together, and
        // two separate reads could show a response beside a status that is not yet "responded".
        const { found, responses } = await db.transaction(
          async (tx) => {
            const found = await ownProtocolMessage(tx, recipient, params.messageId);
            if (!found) throw notFound("protocol message", params.messageId);
            return { found, responses: await responsesOf(found.message.id, tx) };
          },
          { isolationLevel: "repeatable read", accessMode: "read only" },
        );
        return messageView(found.message, found.protocol, responses);
      },
      { params: InboxParams, response: { 200: ProtocolMessage }, detail: { summary: "Status of a protocol message", description: "For the sender and the recipient mailbox only; anyone else gets 404.", tags: ["Agent protocol"] } },
    )
    .get(
      "/.agent/inbox/:messageId/responses",
      async (ctx) => {
        const found = await locate(ctx.request, (ctx as unknown as DerivedContext).principal, ctx.params.messageId);
        return { items: (await responsesOf(found.message.id)).map(responseView) };
      },
      { params: InboxParams, response: { 200: t.Object({ items: t.Array(ProtocolResponse) }) }, detail: { summary: "Responses to a protocol message", description: "Oldest first; sender and recipient only.", tags: ["Agent protocol"] } },
    )
    .guard(mutation, (writes) =>
      writes
        .post(
          "/.agent/inbox",
          async (ctx) => {
            const { request, body, set } = ctx;
            const { principal, runtime } = ctx as unknown as DerivedContext;
            const recipient = await hostMailbox(request);
            if (principal?.kind !== "key") throw new AppError("forbidden", "protocol messages are sent by a mailbox: authenticate with the sending mailbox's API key");
            if (runtime?.mode === "observe") {
              await mailboxes.logRuntime(principal.mailboxId, { messageId: null, kind: "protocol_send_observed", detail: `the runtime asked to send a protocol message to ${recipient}; observe mode only logs it`, data: { recipient_mailbox_id: recipient, action: body.action ?? null, subject: body.subject } });
              set.status = 202;
              return { disposition: "observed" as const };
            }
            if (body.subject.trim() === "") throw validationError("subject must not be blank", [{ path: "subject", message: "must not be blank" }]);
            if (body.metadata && JSON.stringify(body.metadata).length > MAX_METADATA_BYTES) throw validationError(`metadata is limited to ${MAX_METADATA_BYTES} bytes of JSON`, [{ path: "metadata", message: "too large" }]);
            const sender = await mailboxes.get(principal.mailboxId);
            if (sender.status === "disabled") throw new AppError("mailbox_disabled", "the sending mailbox is disabled");
            const callbackUrl = body.from?.callback_url === undefined ? undefined : await checkTargetUrl(body.from.callback_url, "from.callback_url", deps.targets);
            const { message, protocol } = await mailboxes.receiveProtocol(recipient, {
              sender: { mailboxId: sender.id, emailAddress: sender.emailAddress },
              input: {
                from: { agent: body.from?.agent, onBehalfOf: body.from?.on_behalf_of, callbackUrl },
                action: body.action,
                parameters: body.parameters,
                subject: body.subject,
                body: body.body,
                threadId: body.thread_id,
                priority: body.priority,
                metadata: body.metadata,
              },
              raw: body,
            });
            set.status = 201;
            const here = `${origin(request)}/.agent/inbox/${message.id}`;
            return { id: message.id, status: protocol.status, action: protocol.action, thread_id: message.threadId!, created_at: message.createdAt.toISOString(), status_url: here, responses_url: `${here}/responses` };
          },
          {
            body: InboxBody,
            response: { 201: Accepted, 202: t.Object({ disposition: t.Literal("observed") }) },
            detail: {
              summary: "Send a protocol message",
              description:
                "Authenticated with an API key of the sending mailbox. Checks, in order: the body's shape and a non-blank subject (400 validation_error); the callback URL (400); the recipient takes messages (403 mailbox_disabled); the action exists and is enabled (400 unknown_action); parameters match its schema (400 schema_validation_failed, the validator's errors in details.errors); a message without an action needs a body and no parameters (400).",
              tags: ["Agent protocol"],
            },
          },
        )
        .post(
          "/.agent/inbox/:messageId/respond",
          async (ctx) => {
            const { request, params, body, set } = ctx;
            const { principal, runtime } = ctx as unknown as DerivedContext;
            const found = await locate(request, principal, params.messageId);
            if (found.role === "sender") throw new AppError("forbidden", "only the recipient mailbox may respond to a protocol message");
            if (body.structured_data !== undefined && body.structuredData !== undefined) throw validationError("give structured_data or structuredData, not both", [{ path: "structuredData", message: "duplicates structured_data" }]);
            const input = { body: body.body, structuredData: body.structured_data ?? body.structuredData };
            if (runtime?.mode === "observe") {
              await mailboxes.logRuntime(found.recipient, { messageId: found.message.id, kind: "respond_observed", detail: "the runtime asked to respond; observe mode only logs it", data: { body: input.body ?? null, structured_data: input.structuredData ?? null } });
              set.status = 202;
              return { disposition: "observed" as const };
            }
            const response = await mailboxes.respond(found.recipient, found.message.id, runtime ? "runtime" : "agent", input);
            set.status = 201;
            return { response: responseView(response) };
          },
          {
            params: InboxParams,
            body: RespondBody,
            response: { 201: t.Object({ response: ProtocolResponse }), 202: t.Object({ disposition: t.Literal("observed") }) },
            detail: {
              summary: "Respond to a protocol message",
              description:
                "Recipient mailbox only (the sender gets 403, others 404). A body or structured_data is required; structured_data must match the action's response schema (400 schema_validation_failed). With the sender's callback URL the response is POSTed there (delivery_mode callback, signed with x-service-callback-signature); otherwise it waits to be polled (poll). Fires protocol.response.created. An agent runtime in observe mode gets 202 and nothing is sent.",
              tags: ["Agent protocol"],
            },
          },
        ),
    );
}
