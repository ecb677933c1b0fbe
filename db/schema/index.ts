export * from "./accounts.ts";
export * from "./idempotency.ts";
