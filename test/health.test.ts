import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, usingNats, usingPostgres, type TestService } from "./harness.ts";

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ NODE_ID: "health-node-1" });
});
afterAll(() => t.stop());

describe("GET /health", () => {
  test("is public and reports ok, the node id and the mode", async () => {
    const res = await t.api("GET", "/health", { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(res.body).toMatchObject({
      status: "ok",
      node_id: "health-node-1",
      mode: {
        database: usingPostgres ? "postgres" : "pglite",
        jobs: usingNats ? "nats" : "in-process",
      },
      checks: { database: "ok" },
    });
    expect(typeof res.body.uptime_seconds).toBe("number");
    expect(res.body.uptime_seconds).toBeGreaterThanOrEqual(0);
  });

  test("any Authorization header, even a bad one, is ignored", async () => {
    for (const token of ["not-a-token", "svc_bad.bad"]) {
      const res = await t.api("GET", "/health", { token });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("ok");
    }
  });
});

describe("GET /health when the database is gone", () => {
  let dead: TestService;
  beforeAll(async () => {
    dead = await startTestService({ NODE_ID: "health-node-dead" });
  });
  afterAll(() => dead.stop());

  test("answers 503 unavailable (not 500) with checks.database failed", async () => {
    expect((await dead.api("GET", "/health", { token: null })).status).toBe(200);
    await dead.service.internals.database.close();
    const res = await dead.api("GET", "/health", { token: null });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({
      status: "unavailable",
      node_id: "health-node-dead",
      mode: { database: usingPostgres ? "postgres" : "pglite", jobs: usingNats ? "nats" : "in-process" },
      checks: { database: "failed" },
    });
    expect(res.body.error).toBeUndefined();
  });
});
