import { describe, expect, test } from "bun:test";
import { SEND_MESSAGE_ACTION } from "../src/domain/default-actions.ts";
import { a2aAgentCard, agentJson, agentName, type DiscoveryAction, type DiscoveryMailbox } from "../src/protocol/discovery.ts";

const ORIGIN = "http://support.acme.agents.localhost:3000";
const INBOX = `${ORIGIN}/.agent/inbox`;
const TOKEN_WORDS = "An API key of the sending mailbox on this service, svc_{keyId}.{secret}.";

const mailbox: DiscoveryMailbox = {
  id: "7f1c2a52-1f0e-4a43-9a0b-3d5b8f6f1c11",
  slug: "support",
  emailAddress: "support.acme@mail.localhost",
  protocolHost: "support.acme.agents.localhost",
  status: "active",
  displayName: "Acme Corp",
};

const REFUND_ACTION: DiscoveryAction = {
  name: "request_refund",
  description: "Request a refund for an order",
  parameterSchema: {
    type: "object",
    properties: {
      order_id: { type: "string", description: "The order ID" },
      reason: { type: "string", enum: ["damaged", "wrong_item", "other"] },
      customer: {
        type: "object",
        properties: {
          email: { type: "string", format: "email" },
          tier: { type: "string", enum: ["gold", "silver"] },
          address: { type: "object", properties: { city: { type: "string" }, zip: { type: "string" } }, required: ["city"] },
        },
        required: ["email"],
      },
      items: {
        type: "array",
        items: { type: "object", properties: { sku: { type: "string" }, qty: { type: "integer", minimum: 1 } }, required: ["sku"] },
      },
    },
    required: ["order_id", "reason", "customer"],
  },
  responseSchema: {
    type: "object",
    properties: {
      refund_id: { type: "string" },
      amount: { type: "number" },
      lines: { type: "array", items: { type: "object", properties: { sku: { type: "string" }, refunded: { type: "boolean" } } } },
    },
    required: ["refund_id"],
  },
};

const ACTIONS: DiscoveryAction[] = [SEND_MESSAGE_ACTION, REFUND_ACTION];

/** Every path in a JSON value whose value is undefined (or a non-JSON value like a function). */
function nonJsonPaths(value: unknown, path = "$"): string[] {
  if (value === undefined || typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") return [path];
  if (typeof value === "number" && !Number.isFinite(value)) return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => nonJsonPaths(v, `${path}[${i}]`));
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => nonJsonPaths(v, `${path}.${k}`));
  return [];
}

describe("agentJson", () => {
  const doc = agentJson(mailbox, ACTIONS, ORIGIN, "1.4.2");

  test("agent.json protocol fields", () => {
    expect(doc.protocol).toBe("agent-json");
    expect(doc.version).toBe("1.0");
    expect(doc.name).toBe("Acme Corp (support)");
    expect(doc.description).toContain("support.acme@mail.localhost");
    expect(doc.description).toContain(INBOX);
    expect(doc.message_endpoint).toBe(INBOX);
    expect(doc.authentication).toEqual({
      type: "bearer",
      header: "Authorization",
      format: "Bearer svc_{keyId}.{secret}",
      description: TOKEN_WORDS,
    });
    expect(doc.response_modes).toEqual(["poll", "callback"]);
    expect(doc.message_statuses).toEqual(["received", "routed", "responded", "failed"]);
    expect(doc.response_statuses).toEqual(["pending", "delivered", "failed"]);
    expect(doc.service_version).toBe("1.4.2");
    expect(doc).not.toHaveProperty("$schema");
  });

  test("actions keep their order and carry their schemas verbatim, nested ones included", () => {
    expect(doc.actions).toEqual([
      {
        name: "send_message",
        description: "Send an email from this mailbox.",
        parameters: SEND_MESSAGE_ACTION.parameterSchema,
        response_schema: SEND_MESSAGE_ACTION.responseSchema,
      },
      {
        name: "request_refund",
        description: "Request a refund for an order",
        parameters: REFUND_ACTION.parameterSchema,
        response_schema: REFUND_ACTION.responseSchema,
      },
    ]);
  });

  test("the schemas are copies: changing the document leaves the actions alone", () => {
    const fresh = agentJson(mailbox, ACTIONS, ORIGIN, "1");
    const first = (fresh.actions as { parameters: Record<string, unknown> }[])[1]!;
    expect(first.parameters).not.toBe(REFUND_ACTION.parameterSchema);
    first.parameters.type = "changed";
    expect((REFUND_ACTION.parameterSchema as Record<string, unknown>).type).toBe("object");
  });

  test("mailbox, endpoints, access and callbacks", () => {
    expect(doc.mailbox).toEqual({ address: "support.acme@mail.localhost", protocol_host: "support.acme.agents.localhost" });
    expect(doc.endpoints).toEqual({
      discovery: `${ORIGIN}/.well-known/agent.json`,
      agent_card: `${ORIGIN}/.well-known/agent-card.json`,
      inbox: INBOX,
      status: `${INBOX}/{messageId}`,
      respond: `${INBOX}/{messageId}/respond`,
      responses: `${INBOX}/{messageId}/responses`,
    });
    const access = doc.access as Record<string, string>;
    expect(Object.keys(access)).toEqual(["discovery", "send", "status", "responses", "respond"]);
    expect(access.discovery).toMatch(/public/i);
    expect(access.send).toContain("API key of the sending mailbox");
    expect(access.send).toContain("svc_{keyId}.{secret}");
    expect(access.status).toMatch(/sender mailbox and the recipient mailbox/);
    expect(access.responses).toMatch(/sender mailbox and the recipient mailbox/);
    expect(access.respond).toMatch(/^Only the recipient mailbox/);

    const callbacks = doc.callbacks as Record<string, unknown>;
    expect(callbacks.request_field).toBe("from.callback_url");
    expect(callbacks.method).toBe("POST");
    expect(callbacks.content_type).toBe("application/json");
    expect(callbacks.signature).toEqual({
      header: "x-service-callback-signature",
      algorithm: "HMAC-SHA256",
      encoding: "lowercase hex",
      signed_content: "the raw request body, byte for byte",
      key: "the sender mailbox's callback signing secret",
    });
  });

  test("A2A-like fields: url, capabilities, skills, bearer security scheme, modes", () => {
    expect(doc.url).toBe(INBOX);
    expect(doc.capabilities).toEqual({ streaming: false, pushNotifications: true });
    expect(doc.securitySchemes).toEqual({
      mailboxApiKey: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "svc_{keyId}.{secret}",
        description: TOKEN_WORDS,
        httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "svc_{keyId}.{secret}", description: TOKEN_WORDS },
      },
    });
    expect(doc.security).toEqual([{ mailboxApiKey: [] }]);
    expect(doc.defaultInputModes).toEqual(["application/json", "text/plain"]);
    expect(doc.defaultOutputModes).toEqual(["application/json", "text/plain"]);
    expect((doc.skills as { id: string }[]).map((s) => s.id)).toEqual(["send_message", "request_refund"]);
  });
});

describe("a2aAgentCard", () => {
  const card = a2aAgentCard(mailbox, ACTIONS, ORIGIN, "1.4.2");

  test("v1.0 card fields", () => {
    expect(card.name).toBe("Acme Corp (support)");
    expect(card.description).toContain("support.acme@mail.localhost");
    expect(card.description).toContain(`${INBOX} speaks the agent.json inbox protocol`);
    expect(card.supportedInterfaces).toEqual([{ url: INBOX, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }]);
    expect(card.version).toBe("1.4.2");
    expect(card.documentationUrl).toBe(`${ORIGIN}/.well-known/agent.json`);
    expect(card.capabilities).toEqual({ streaming: false, pushNotifications: true });
    expect(card.securitySchemes).toEqual({
      mailboxApiKey: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "svc_{keyId}.{secret}",
        description: TOKEN_WORDS,
        httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "svc_{keyId}.{secret}", description: TOKEN_WORDS },
      },
    });
    expect(card.securityRequirements).toEqual([{ schemes: { mailboxApiKey: { list: [] } } }]);
    expect(card.defaultInputModes).toEqual(["application/json", "text/plain"]);
    expect(card.defaultOutputModes).toEqual(["application/json", "text/plain"]);
  });

  test("0.3 fields name the same endpoint", () => {
    expect(card.protocolVersion).toBe("0.3.0");
    expect(card.url).toBe(INBOX);
    expect(card.preferredTransport).toBe("HTTP+JSON");
    expect(card.security).toEqual([{ mailboxApiKey: [] }]);
  });

  test("one skill per action, in order, with the parameter schema summarised", () => {
    const skills = card.skills as Record<string, unknown>[];
    expect(skills.map((s) => s.id)).toEqual(["send_message", "request_refund"]);
    const [send, refund] = skills as [Record<string, unknown>, Record<string, unknown>];

    expect(send.name).toBe("Send message");
    expect(send.tags).toEqual(["agent-json", "action", "send", "message"]);
    expect(send.inputModes).toEqual(["application/json"]);
    expect(send.outputModes).toEqual(["application/json"]);
    expect(send.description).toBe(
      "Send an email from this mailbox. Parameters: to* (array of string, email), subject* (string), text* (string). " +
        "Response structured_data: message_id* (string), status* (string). (* = required.) " +
        `Call it by POSTing {"action": "send_message", "parameters": {...}} to ${INBOX}.`,
    );
    expect((send.examples as string[]).map((e) => JSON.parse(e))).toEqual([
      { from: { agent: "your-agent" }, action: "send_message", parameters: { to: ["someone@example.com"], subject: "text", text: "text" } },
    ]);

    expect(refund.name).toBe("Request refund");
    expect(refund.tags).toEqual(["agent-json", "action", "request", "refund"]);
    expect(refund.description).toBe(
      "Request a refund for an order. Parameters: order_id* (string), reason* (one of \"damaged\" | \"wrong_item\" | \"other\"), " +
        "customer* (object: email* (string, email), tier (one of \"gold\" | \"silver\"), address (object: city* (string), zip (string))), " +
        "items (array of object: sku* (string), qty (integer)). " +
        "Response structured_data: refund_id* (string), amount (number), lines (array of object: sku (string), refunded (boolean)). (* = required.) " +
        `Call it by POSTing {"action": "request_refund", "parameters": {...}} to ${INBOX}.`,
    );
    expect((refund.examples as string[]).map((e) => JSON.parse(e))).toEqual([
      {
        from: { agent: "your-agent" },
        action: "request_refund",
        parameters: { order_id: "text", reason: "damaged", customer: { email: "someone@example.com" } },
      },
    ]);
    for (const s of skills) for (const e of s.examples as string[]) expect(e).not.toContain("x-");
  });

  test("an action without a description or schemas still makes a complete skill", () => {
    const bare = a2aAgentCard(mailbox, [{ name: "ping", description: "", parameterSchema: {}, responseSchema: {} }], ORIGIN, "1");
    const [skill] = bare.skills as Record<string, unknown>[];
    expect(skill).toEqual({
      id: "ping",
      name: "Ping",
      description: `The ping action. Parameters: any value. Response structured_data: any value. (* = required.) Call it by POSTing {"action": "ping", "parameters": {...}} to ${INBOX}.`,
      tags: ["agent-json", "action", "ping"],
      examples: [JSON.stringify({ from: { agent: "your-agent" }, action: "ping", parameters: {} })],
      inputModes: ["application/json"],
      outputModes: ["application/json"],
    });
  });
});

describe("both documents", () => {
  test("the origin is used verbatim, port and scheme kept", () => {
    for (const origin of ["http://support.acme.agents.localhost:3000", "https://support.acme.agents.example:8443", "http://127.0.0.1:49152"]) {
      const doc = agentJson(mailbox, ACTIONS, origin, "1");
      const card = a2aAgentCard(mailbox, ACTIONS, origin, "1");
      expect(doc.message_endpoint).toBe(`${origin}/.agent/inbox`);
      expect((doc.endpoints as Record<string, string>).status).toBe(`${origin}/.agent/inbox/{messageId}`);
      expect(card.url).toBe(`${origin}/.agent/inbox`);
      expect((card.supportedInterfaces as { url: string }[])[0]!.url).toBe(`${origin}/.agent/inbox`);
      for (const text of [JSON.stringify(doc), JSON.stringify(card)]) {
        const urls = text.match(/https?:\/\/[^\s"\\]+/g) ?? [];
        expect(urls.length).toBeGreaterThan(0);
        for (const url of urls) if (!url.startsWith("https://example.com") && !url.startsWith("https://json-schema.org")) expect(url.startsWith(`${origin}/`)).toBe(true);
      }
    }
  });

  test("a trailing slash on the origin does not double the slash", () => {
    expect(agentJson(mailbox, [], `${ORIGIN}/`, "1").message_endpoint).toBe(INBOX);
    expect(a2aAgentCard(mailbox, [], `${ORIGIN}/`, "1").url).toBe(INBOX);
  });

  test("no actions → empty arrays", () => {
    const doc = agentJson(mailbox, [], ORIGIN, "1");
    const card = a2aAgentCard(mailbox, [], ORIGIN, "1");
    expect(doc.actions).toEqual([]);
    expect(doc.skills).toEqual([]);
    expect(card.skills).toEqual([]);
  });

  test("they are told apart: agent.json has message_endpoint and actions, the card protocolVersion, supportedInterfaces and skills", () => {
    const doc = agentJson(mailbox, ACTIONS, ORIGIN, "1");
    const card = a2aAgentCard(mailbox, ACTIONS, ORIGIN, "1");
    expect(doc).toHaveProperty("message_endpoint");
    expect(doc).toHaveProperty("actions");
    expect(doc).not.toHaveProperty("protocolVersion");
    expect(doc).not.toHaveProperty("supportedInterfaces");
    expect(card).toHaveProperty("protocolVersion");
    expect(card).toHaveProperty("supportedInterfaces");
    expect(card).toHaveProperty("skills");
    expect(card).not.toHaveProperty("actions");
    expect(card).not.toHaveProperty("message_endpoint");
    expect(card).not.toHaveProperty("protocol");
    expect(doc.skills).toEqual(card.skills);
  });

  test("JSON-serialisable with no undefined anywhere", () => {
    const withUndefined: DiscoveryAction = {
      name: "odd",
      description: "Has undefined inside its schema.",
      parameterSchema: { type: "object", properties: { a: { type: "string", description: undefined } } },
      responseSchema: {},
    };
    for (const m of [mailbox, { ...mailbox, displayName: null }, { ...mailbox, status: "disabled" }]) {
      for (const actions of [[], ACTIONS, [withUndefined]]) {
        for (const out of [agentJson(m, actions, ORIGIN, "1"), a2aAgentCard(m, actions, ORIGIN, "1")]) {
          expect(nonJsonPaths(out)).toEqual([]);
          expect(JSON.parse(JSON.stringify(out))).toEqual(out);
        }
      }
    }
  });

  test("without a display name the mailbox address is the name; a disabled mailbox says so", () => {
    const plain = { ...mailbox, displayName: null };
    expect(agentName(plain)).toBe("support.acme@mail.localhost");
    expect(agentName({ ...mailbox, displayName: "   " })).toBe("support.acme@mail.localhost");
    expect(agentJson(plain, [], ORIGIN, "1").name).toBe("support.acme@mail.localhost");
    const card = a2aAgentCard(plain, [], ORIGIN, "1");
    expect(card.name).toBe("support.acme@mail.localhost");
    expect(card.description).toContain("support.acme@mail.localhost");
    expect(card.description).not.toContain(" of ");
    expect(agentJson({ ...mailbox, status: "disabled" }, [], ORIGIN, "1").description).toContain("This mailbox is disabled.");
    expect(agentJson(mailbox, [], ORIGIN, "1").description).not.toContain("disabled");
  });
});
