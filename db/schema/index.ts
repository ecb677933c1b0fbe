export * from "./accounts.ts";
export * from "./idempotency.ts";
export * from "./mail.ts";
export * from "./messages.ts";
export * from "./webhooks.ts";
export * from "./agents.ts";
export * from "./knowledge.ts";
export * from "./deployment.ts";
