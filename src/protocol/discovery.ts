/**
 * The discovery documents a mailbox serves at its protocol host. Pure: data in, JSON out.
 *
 * - agentJson(): GET /.well-known/agent.json, the agent.json protocol's document
 *   (https://agent-json-docs.pages.dev/protocol/discovery) plus the Agent-Card-like fields that fit.
 * - a2aAgentCard(): GET /.well-known/agent-card.json, an A2A Agent Card (v1.0, readable by 0.3
 *   tooling too) that points A2A clients at the same agent.json inbox.
 *
 * Field names follow their protocol: agent.json's are snake_case, the ones borrowed from A2A keep
 * A2A's camelCase. Every value is JSON (schemas are copied through JSON), never undefined.
 */

export interface DiscoveryMailbox {
  id: string;
  slug: string;
  emailAddress: string;
  protocolHost: string;
  status: string;
  /** The account's display name. */
  displayName: string | null;
}

export interface DiscoveryAction {
  name: string;
  description: string;
  parameterSchema: object;
  responseSchema: object;
}

export const AGENT_JSON_PATH = "/.well-known/agent.json";
export const A2A_AGENT_CARD_PATH = "/.well-known/agent-card.json";
export const INBOX_PATH = "/.agent/inbox";

/** agent.json's own protocol version, which its `version` field carries. */
export const AGENT_JSON_VERSION = "1.0";
/** We answer by polling and by signed callbacks; there is no `sync` mode. */
export const RESPONSE_MODES = ["poll", "callback"] as const;
export const MESSAGE_STATUSES = ["received", "routed", "responded", "failed"] as const;
export const RESPONSE_STATUSES = ["pending", "delivered", "failed"] as const;
export const CALLBACK_SIGNATURE_HEADER = "x-service-callback-signature";

const TOKEN_FORMAT = "svc_{keyId}.{secret}";
const SECURITY_SCHEME_NAME = "mailboxApiKey";
const DEFAULT_MODES = ["application/json", "text/plain"];
const SKILL_MODES = ["application/json"];

export function agentJson(mailbox: DiscoveryMailbox, actions: DiscoveryAction[], origin: string, serviceVersion: string): Record<string, unknown> {
  const base = trimOrigin(origin);
  const inbox = base + INBOX_PATH;
  return {
    protocol: "agent-json",
    version: AGENT_JSON_VERSION,
    name: agentName(mailbox),
    description: `${mailboxSummary(mailbox)} Send it agent.json protocol messages at ${inbox}.${disabledNote(mailbox)}`,
    message_endpoint: inbox,
    authentication: {
      type: "bearer",
      header: "Authorization",
      format: `Bearer ${TOKEN_FORMAT}`,
      description: senderKeyWords(),
    },
    actions: actions.map((a) => ({
      name: a.name,
      description: a.description,
      parameters: jsonCopy(a.parameterSchema),
      response_schema: jsonCopy(a.responseSchema),
    })),
    response_modes: [...RESPONSE_MODES],
    message_statuses: [...MESSAGE_STATUSES],
    response_statuses: [...RESPONSE_STATUSES],
    mailbox: { address: mailbox.emailAddress, protocol_host: mailbox.protocolHost },
    endpoints: {
      discovery: base + AGENT_JSON_PATH,
      agent_card: base + A2A_AGENT_CARD_PATH,
      inbox,
      status: `${inbox}/{messageId}`,
      respond: `${inbox}/{messageId}/respond`,
      responses: `${inbox}/{messageId}/responses`,
    },
    access: {
      discovery: "Public: no authentication.",
      send: `POST the message with an API key of the sending mailbox on this service (Authorization: Bearer ${TOKEN_FORMAT}); that mailbox becomes the message's sender.`,
      status: "The sender mailbox and the recipient mailbox (this one) may read a message's status.",
      responses: "The sender mailbox and the recipient mailbox (this one) may read a message's responses.",
      respond: "Only the recipient mailbox (this one) may respond to a message.",
    },
    callbacks: {
      request_field: "from.callback_url",
      description:
        "When a message carries from.callback_url, each response to it is POSTed there as JSON; without one, poll the status or responses endpoint.",
      method: "POST",
      content_type: "application/json",
      signature: {
        header: CALLBACK_SIGNATURE_HEADER,
        algorithm: "HMAC-SHA256",
        encoding: "lowercase hex",
        signed_content: "the raw request body, byte for byte",
        key: "the sender mailbox's callback signing secret",
      },
      note: "Unlike the agent.json reference service, no timestamp header is sent and none is part of the signed content.",
    },
    service_version: serviceVersion,
    // A2A Agent Card fields that fit an agent.json document (no protocolVersion, no interfaces).
    url: inbox,
    capabilities: capabilities(),
    skills: actions.map((a) => skill(a, inbox)),
    securitySchemes: securitySchemes(),
    security: [{ [SECURITY_SCHEME_NAME]: [] }],
    defaultInputModes: [...DEFAULT_MODES],
    defaultOutputModes: [...DEFAULT_MODES],
  };
}

/**
 * An A2A Agent Card. Its one interface is our agent.json inbox, declared as HTTP+JSON; the card
 * carries the v1.0 fields (supportedInterfaces, securityRequirements) and the 0.3 ones (url,
 * preferredTransport, protocolVersion, security) side by side, as the a2a-python resolver reads them.
 */
export function a2aAgentCard(mailbox: DiscoveryMailbox, actions: DiscoveryAction[], origin: string, serviceVersion: string): Record<string, unknown> {
  const base = trimOrigin(origin);
  const inbox = base + INBOX_PATH;
  return {
    name: agentName(mailbox),
    description:
      `${mailboxSummary(mailbox)} Its message endpoint ${inbox} speaks the agent.json inbox protocol, not A2A's JSON-RPC or REST methods: ` +
      `POST {"from": {"agent": "..."}, "action": "<skill id>", "parameters": {...}} and poll ${inbox}/{messageId} or give from.callback_url. ` +
      `The full protocol description is at ${base + AGENT_JSON_PATH}.${disabledNote(mailbox)}`,
    supportedInterfaces: [{ url: inbox, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }],
    version: serviceVersion,
    documentationUrl: base + AGENT_JSON_PATH,
    capabilities: capabilities(),
    securitySchemes: securitySchemes(),
    securityRequirements: [{ schemes: { [SECURITY_SCHEME_NAME]: { list: [] } } }],
    defaultInputModes: [...DEFAULT_MODES],
    defaultOutputModes: [...DEFAULT_MODES],
    skills: actions.map((a) => skill(a, inbox)),
    // A2A 0.3 spelling of the same endpoint and requirement.
    protocolVersion: "0.3.0",
    url: inbox,
    preferredTransport: "HTTP+JSON",
    security: [{ [SECURITY_SCHEME_NAME]: [] }],
  };
}

/** "Acme (support)" with an account display name, else the mailbox address. */
export function agentName(mailbox: DiscoveryMailbox): string {
  const display = mailbox.displayName?.trim();
  return display ? `${display} (${mailbox.slug})` : mailbox.emailAddress;
}

function mailboxSummary(mailbox: DiscoveryMailbox): string {
  const display = mailbox.displayName?.trim();
  const owner = display ? ` of ${display}` : "";
  return `Agent mailbox ${mailbox.emailAddress}${owner}, served at ${mailbox.protocolHost}.`;
}

const disabledNote = (mailbox: DiscoveryMailbox): string => (mailbox.status === "disabled" ? " This mailbox is disabled." : "");

const trimOrigin = (origin: string): string => origin.replace(/\/+$/, "");

const senderKeyWords = (): string => `An API key of the sending mailbox on this service, ${TOKEN_FORMAT}.`;

const capabilities = () => ({ streaming: false, pushNotifications: true });

/**
 * One bearer scheme in both shapes: OpenAPI-style `type: "http"` (A2A 0.3) and the v1.0 oneof
 * wrapper `httpAuthSecurityScheme`. Each version's readers ignore the other shape's keys.
 */
function securitySchemes(): Record<string, unknown> {
  const description = senderKeyWords();
  return {
    [SECURITY_SCHEME_NAME]: {
      type: "http",
      scheme: "bearer",
      bearerFormat: TOKEN_FORMAT,
      description,
      httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: TOKEN_FORMAT, description },
    },
  };
}

function skill(action: DiscoveryAction, inbox: string): Record<string, unknown> {
  const params = asSchema(action.parameterSchema);
  const lead = action.description.trim() || `The ${action.name} action.`;
  const sample = exampleValue(params, 0);
  const example = { from: { agent: "your-agent" }, action: action.name, parameters: objectOf(sample) ?? {} };
  return {
    id: action.name,
    name: humanName(action.name),
    description:
      `${withStop(lead)} Parameters: ${summarise(params, 0)}. Response structured_data: ${summarise(asSchema(action.responseSchema), 0)}. ` +
      `(* = required.) Call it by POSTing {"action": "${action.name}", "parameters": {...}} to ${inbox}.`,
    tags: unique(["agent-json", "action", ...action.name.split(/[_\-.\s]+/).filter(Boolean).map((w) => w.toLowerCase())]),
    examples: [JSON.stringify(example)],
    inputModes: [...SKILL_MODES],
    outputModes: [...SKILL_MODES],
  };
}

// ---- JSON Schema helpers: a one-line summary and an example value, both depth-bounded ----

type Schema = Record<string, unknown>;
const MAX_DEPTH = 4;

function summarise(schema: Schema, depth: number): string {
  const props = objectOf(schema.properties);
  if (props && Object.keys(props).length > 0) {
    if (depth >= MAX_DEPTH) return "object";
    const required = new Set(stringsOf(schema.required));
    const fields = Object.entries(props).map(([key, sub]) => `${key}${required.has(key) ? "*" : ""} (${describe(asSchema(sub), depth + 1)})`);
    return fields.join(", ");
  }
  return describe(schema, depth);
}

function describe(schema: Schema, depth: number): string {
  if ("const" in schema) return `exactly ${JSON.stringify(schema.const)}`;
  const choices = Array.isArray(schema.enum) ? schema.enum : null;
  const variants = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
  const types = Array.isArray(schema.type) ? stringsOf(schema.type) : typeof schema.type === "string" ? [schema.type] : [];
  let text: string;
  if (choices) text = `one of ${choices.map((c) => JSON.stringify(c)).join(" | ")}`;
  else if (variants) text = depth >= MAX_DEPTH ? "one of several shapes" : `any of: ${variants.map((v) => describe(asSchema(v), depth + 1)).join(" | ")}`;
  else if (types.includes("array")) {
    const items = asSchema(schema.items);
    text = `array of ${depth >= MAX_DEPTH ? "items" : isObjectSchema(items) ? `object: ${summarise(items, depth + 1)}` : describe(items, depth + 1)}`;
  } else if (types.includes("object") || objectOf(schema.properties)) {
    const inner = objectOf(schema.properties);
    text = inner && Object.keys(inner).length > 0 ? (depth >= MAX_DEPTH ? "object" : `object: ${summarise(schema, depth)}`) : "object";
  } else if (types.length > 0) text = types.join(" or ");
  else if (typeof schema.$ref === "string") text = `see ${schema.$ref}`;
  else text = "any value";
  if (typeof schema.format === "string") text += `, ${schema.format}`;
  return text;
}

function exampleValue(schema: Schema, depth: number): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return jsonCopy(schema.examples[0]);
  if ("default" in schema) return jsonCopy(schema.default);
  if ("const" in schema) return jsonCopy(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return jsonCopy(schema.enum[0]);
  const variants = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
  if (variants && variants.length > 0) return exampleValue(asSchema(variants[0]), depth + 1);
  const type = Array.isArray(schema.type) ? stringsOf(schema.type).find((t) => t !== "null") : schema.type;
  if (depth >= MAX_DEPTH) return null;
  if (type === "object" || objectOf(schema.properties)) {
    const props = objectOf(schema.properties) ?? {};
    const required = stringsOf(schema.required);
    const keys = required.length > 0 ? required.filter((k) => k in props) : Object.keys(props);
    return Object.fromEntries(keys.map((k) => [k, exampleValue(asSchema(props[k]), depth + 1)]));
  }
  if (type === "array") return [exampleValue(asSchema(schema.items), depth + 1)];
  if (type === "integer" || type === "number") return typeof schema.minimum === "number" ? schema.minimum : 1;
  if (type === "boolean") return true;
  if (type === "null") return null;
  if (type === "string") return stringExample(schema.format);
  return null;
}

function stringExample(format: unknown): string {
  switch (format) {
    case "email":
      return "someone@example.com";
    case "uri":
    case "url":
      return "https://example.com/";
    case "date-time":
      return "2025-01-01T00:00:00Z";
    case "date":
      return "2025-01-01";
    case "uuid":
      return "00000000-0000-4000-8000-000000000000";
    default:
      return "text";
  }
}

const isObjectSchema = (s: Schema): boolean => s.type === "object" || objectOf(s.properties) !== null;

function asSchema(value: unknown): Schema {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Schema) : {};
}

function objectOf(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

const stringsOf = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);

/** A JSON copy: the document shares nothing with the caller and holds no undefined. */
function jsonCopy(value: unknown): unknown {
  if (value === undefined) return null;
  const text = JSON.stringify(value);
  return text === undefined ? null : JSON.parse(text);
}

const humanName = (name: string): string => {
  const words = name.split(/[_\-.\s]+/).filter(Boolean).join(" ");
  return words ? words[0]!.toUpperCase() + words.slice(1) : name;
};

const withStop = (text: string): string => (/[.!?]$/.test(text) ? text : `${text}.`);

const unique = (items: string[]): string[] => [...new Set(items)];
