import { Elysia } from "elysia";
import { PROMETHEUS_CONTENT_TYPE } from "../metrics/registry.ts";
import type { ServiceMetrics } from "../metrics/service-metrics.ts";

const STATUS_NAMES: Record<string, number> = { OK: 200, Created: 201, Accepted: 202, "Not Found": 404 };

/**
 * Request counts and latency by route template (never the raw path, whose ids would make a
 * series per resource). Used first, so that every request is timed from its start.
 */
export function requestMetrics(metrics: ServiceMetrics) {
  const started = new WeakMap<Request, number>();
  return new Elysia({ name: "request-metrics" })
    .onRequest(({ request }) => {
      started.set(request, performance.now());
    })
    .onAfterResponse({ as: "global" }, ({ request, route, set }) => {
      const t0 = started.get(request);
      if (t0 === undefined) return;
      const status = typeof set.status === "number" ? set.status : (STATUS_NAMES[String(set.status)] ?? 200);
      metrics.observeHttp(request.method, route || "unmatched", status, (performance.now() - t0) / 1000);
    });
}

/** The Prometheus endpoint; used after the request pipeline, which checks the admin token. */
export function metricsRoutes(metrics: ServiceMetrics) {
  return new Elysia({ name: "metrics" }).get(
      "/metrics",
      async () => new Response(await metrics.render(), { headers: { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" } }),
      {
        detail: {
          summary: "Prometheus metrics of this node",
          description:
            "Text exposition format 0.0.4: HTTP requests by route template and status with latency histograms, SMTP sessions and messages, actors in memory and their queue depth, outbox rows pending and the lag of the oldest due one, deliveries pending, JetStream consumer backlog, uptime and memory. Admin token only.",
          tags: ["Operations"],
          responses: { 200: { description: "Prometheus text", content: { "text/plain": { schema: { type: "string" } } } } },
        },
      },
    );
}
