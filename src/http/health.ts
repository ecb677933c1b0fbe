import { Elysia, t } from "elysia";

export interface HealthDeps {
  nodeId: string;
  mode: { database: "postgres" | "pglite"; jobs: "nats" | "in-process" };
  ping(): Promise<void>;
  /** Whether the node is draining for shutdown; load balancers should stop sending to it. */
  draining(): boolean;
}

const Health = t.Object({
  status: t.Union([t.Literal("ok"), t.Literal("unavailable")]),
  node_id: t.String(),
  mode: t.Object({ database: t.Union([t.Literal("postgres"), t.Literal("pglite")]), jobs: t.Union([t.Literal("nats"), t.Literal("in-process")]) }),
  checks: t.Object({ database: t.Union([t.Literal("ok"), t.Literal("failed")]) }),
  uptime_seconds: t.Number(),
});

const started = performance.now();

export function healthRoutes(deps: HealthDeps) {
  return new Elysia({ name: "health" }).get(
    "/health",
    async ({ set }) => {
      const database = await deps.ping().then(
        () => "ok" as const,
        () => "failed" as const,
      );
      const ok = database === "ok" && !deps.draining();
      if (!ok) set.status = 503;
      return {
        status: ok ? ("ok" as const) : ("unavailable" as const),
        node_id: deps.nodeId,
        mode: deps.mode,
        checks: { database },
        uptime_seconds: Math.round((performance.now() - started) / 1000),
      };
    },
    {
      response: { 200: Health, 503: Health },
      detail: { summary: "Health check", description: "200 when the database answers; 503 otherwise or while the node drains.", tags: ["Utility"] },
    },
  );
}
