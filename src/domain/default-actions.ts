/** The action every agent mailbox starts with: send an email through the normal send path. */
export const SEND_MESSAGE_ACTION = {
  name: "send_message",
  description: "Send an email from this mailbox.",
  parameterSchema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      to: { type: "array", items: { type: "string", format: "email", maxLength: 254 }, minItems: 1, maxItems: 100 },
      subject: { type: "string", minLength: 1, maxLength: 998 },
      text: { type: "string", maxLength: 1_000_000 },
    },
    required: ["to", "subject", "text"],
    additionalProperties: false,
  },
  responseSchema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      message_id: { type: "string" },
      status: { type: "string" },
    },
    required: ["message_id", "status"],
  },
} as const;
