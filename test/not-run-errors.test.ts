import { describe, expect, test } from "bun:test";
import { ActorStoppedError, ActorTimeoutError } from "../actors/runtime/index.ts";
import { renderError } from "../src/http/errors.ts";
import { createLogger } from "../src/log.ts";

const ctx = { method: "POST", path: "/v1/x", requestId: "req-1", log: createLogger("silent", "test") };

describe("a command that never ran renders as 503 service_unavailable", () => {
  test.each([
    [1, "1"],
    [2_500, "3"],
    [10_000, "10"],
  ])("dropped at a %i ms deadline: Retry-After %s, applied: false", (timeoutMs, retryAfter) => {
    const r = renderError(new ActorTimeoutError("mailbox", "m1", timeoutMs), "UNKNOWN", ctx);
    expect(r.status).toBe(503);
    expect(r.headers).toEqual({ "Retry-After": retryAfter });
    expect(r.body.error.code).toBe("service_unavailable");
    expect(r.body.error.details).toEqual({ applied: false });
  });

  test("refused because the node is stopping: Retry-After 2, applied: false", () => {
    const r = renderError(new ActorStoppedError(), "UNKNOWN", ctx);
    expect(r.status).toBe(503);
    expect(r.headers).toEqual({ "Retry-After": "2" });
    expect(r.body).toEqual({ error: { code: "service_unavailable", message: expect.any(String), details: { applied: false } } });
  });

  test("any other failure still renders as a masked 500", () => {
    const r = renderError(new Error("boom"), "UNKNOWN", ctx);
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe("internal_error");
  });
});
