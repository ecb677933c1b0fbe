/**
 * An example request body for every operation that takes one, keyed like ROUTE_AUTH. They are
 * published as the media type's `example`, beside the schema rather than in it, so the schema
 * stays the very one the route validates with; a test validates each against both.
 */
export const BODY_EXAMPLES: Readonly<Record<string, unknown>> = {
  "POST /v1/accounts": { slug: "acme", displayName: "Acme Corp" },
  "POST /v1/accounts/:accountId/mailboxes": { slug: "support" },
  "POST /v1/mailboxes/:mailboxId/api-keys": { name: "support agent", scope: "mailbox" },
  "PUT /v1/mailboxes/:mailboxId/policy": { allow_outbound: true, allow_auto_reply: false, max_outbound_per_day: 200 },
  "POST /v1/mailboxes/:mailboxId/drafts": { to: ["jane@example.com"], subject: "Your order #4417", textBody: "Hello Jane,\n\nYour order has shipped." },
  "PUT /v1/drafts/:draftId": { subject: "Your order #4417 has shipped", cc: ["orders@example.com"] },
  "POST /v1/mailboxes/:mailboxId/labels": { name: "Invoices", color: "#1e88e5" },
  "POST /v1/accounts/:accountId/suppressions": { address: "bounced@example.com", reason: "hard bounce" },
  "POST /v1/accounts/:accountId/sender-profiles": { address: "billing@vendor.example", disposition: "trusted", notes: "our payment processor", display_name: "Vendor Billing" },
  "PUT /v1/sender-profiles/:profileId": { disposition: "blocked", notes: "sends phishing", display_name: null },
  "PATCH /v1/sender-profiles/:profileId": { notes: "confirmed by the finance team" },
  "POST /v1/mailboxes/:mailboxId/send": { to: ["jane@example.com"], cc: [], subject: "Welcome", textBody: "Hello Jane, welcome aboard.", htmlBody: "<p>Hello Jane, welcome aboard.</p>" },
  "POST /v1/messages/:messageId/reply": { textBody: "Thanks, that works for us." },
  "POST /v1/mailboxes/:mailboxId/search": { query: "invoice from:billing@vendor.example -draft", limit: 20 },
  "POST /v1/messages/:messageId/summary": { force: false },
  "POST /v1/messages/:messageId/extractions": { force: true },
  "POST /v1/threads/:threadId/digest": { force: false },
  "POST /v1/sender-profiles/:profileId/intelligence": { force: false },
  "POST /v1/mailboxes/:mailboxId/webhooks": { url: "https://hooks.example.com/mailroom", events: ["message.received", "message.processed"] },
  "PATCH /v1/webhooks/:endpointId": { enabled: false },
  "POST /v1/webhooks/:endpointId/replay-failed": { since: "2026-01-15T00:00:00.000Z" },
  "POST /v1/mailboxes/:mailboxId/actions": {
    name: "create_ticket",
    description: "Open a support ticket",
    parameter_schema: { type: "object", required: ["title"], properties: { title: { type: "string", maxLength: 200 }, priority: { enum: ["low", "high"] } } },
    response_schema: { type: "object", properties: { ticket_id: { type: "string" } } },
  },
  "PUT /v1/mailboxes/:mailboxId/actions/:actionName": { description: "Open a support ticket (title required)", enabled: true },
  "PUT /v1/mailboxes/:mailboxId/autopilot": { mode: "observe", rules: [] },
  "POST /v1/mailboxes/:mailboxId/agent-runtime-binding": { agentId: "support-bot", runtimeBaseUrl: "https://agents.example.com/support", permissionTier: "draft", policyMode: "draft-first" },
  "POST /v1/mailboxes/:mailboxId/callback-secret": { rotate: false },
  "POST /.agent/inbox": {
    from: { agent: "procurement-bot", on_behalf_of: "Globex Inc.", callback_url: "https://agents.globex.example/callbacks" },
    action: "create_ticket",
    parameters: { title: "Invoice 2291 is missing", priority: "high" },
    subject: "Missing invoice",
    thread_id: "globex-2291",
    priority: "normal",
  },
  "POST /.agent/inbox/:messageId/respond": { body: "Ticket opened.", structured_data: { ticket_id: "T-1042" } },
  "POST /v1/inbound/email": "From: Jane Doe <jane@example.com>\r\nTo: support@acme.mail.localhost\r\nSubject: Where is my order?\r\nMessage-ID: <4417@example.com>\r\nDate: Thu, 15 Jan 2026 10:00:00 +0000\r\n\r\nHello, order 4417 has not arrived.\r\n",
};
