/**
 * The registry's exact exposition text (Prometheus 0.0.4), validation at registration, the
 * bound on label sets, and collectors that fail or stall without failing the scrape.
 */
import { describe, expect, test } from "bun:test";
import { formatNumber, OVERFLOW_LABEL_VALUE, PROMETHEUS_CONTENT_TYPE, Registry } from "../src/metrics/registry.ts";

describe("counters", () => {
  test("a counter without labels shows at zero before its first increment", async () => {
    const r = new Registry();
    r.counter("mail_received_total", "Messages accepted over SMTP.");
    expect(await r.render()).toBe(["# HELP mail_received_total Messages accepted over SMTP.", "# TYPE mail_received_total counter", "mail_received_total 0", ""].join("\n"));
  });

  test("inc adds 1 by default, or the amount given", async () => {
    const r = new Registry();
    const c = r.counter("jobs_total", "Jobs run.");
    c.inc();
    c.inc(undefined, 2.5);
    c.inc({}, 1);
    expect(await r.render()).toBe("# HELP jobs_total Jobs run.\n# TYPE jobs_total counter\njobs_total 4.5\n");
  });

  test("labelled series appear in first-use order with labels in declared order", async () => {
    const r = new Registry();
    const c = r.counter("http_requests_total", "Requests answered.", ["method", "status"]);
    expect(await r.render()).toBe("# HELP http_requests_total Requests answered.\n# TYPE http_requests_total counter\n");
    c.inc({ status: "200", method: "GET" });
    c.inc({ method: "POST", status: "201" }, 3);
    c.inc({ method: "GET", status: "200" });
    expect(await r.render()).toBe(
      [
        "# HELP http_requests_total Requests answered.",
        "# TYPE http_requests_total counter",
        'http_requests_total{method="GET",status="200"} 2',
        'http_requests_total{method="POST",status="201"} 3',
        "",
      ].join("\n"),
    );
  });

  test("a counter cannot go down or by a non-finite amount", () => {
    const c = new Registry().counter("c_total", "c");
    expect(() => c.inc(undefined, -1)).toThrow(RangeError);
    expect(() => c.inc(undefined, Number.NaN)).toThrow(RangeError);
    expect(() => c.inc(undefined, Infinity)).toThrow(RangeError);
  });

  test("labels must be exactly the declared ones", () => {
    const c = new Registry().counter("c_total", "c", ["kind"]);
    expect(() => c.inc()).toThrow("metric c_total takes labels [kind], got []");
    expect(() => c.inc({ kind: "a", extra: "b" })).toThrow("metric c_total takes labels [kind], got [kind, extra]");
    expect(() => c.inc({ sort: "a" })).toThrow(TypeError);
    const unlabelled = new Registry().counter("u_total", "u");
    expect(() => unlabelled.inc({ kind: "a" })).toThrow(TypeError);
  });
});

describe("gauges", () => {
  test("set, inc and dec", async () => {
    const r = new Registry();
    const g = r.gauge("queue_depth", "Jobs waiting.", ["queue"]);
    g.set({ queue: "webhooks" }, 10);
    g.inc({ queue: "webhooks" });
    g.dec({ queue: "webhooks" }, 4);
    g.dec({ queue: "mail" });
    expect(await r.render()).toBe('# HELP queue_depth Jobs waiting.\n# TYPE queue_depth gauge\nqueue_depth{queue="webhooks"} 7\nqueue_depth{queue="mail"} -1\n');
  });

  test("special values are spelled as Prometheus reads them", async () => {
    const r = new Registry();
    const g = r.gauge("g", "g", ["v"]);
    g.set({ v: "inf" }, Infinity);
    g.set({ v: "ninf" }, -Infinity);
    g.set({ v: "nan" }, Number.NaN);
    g.set({ v: "frac" }, 0.25);
    g.set({ v: "tiny" }, 1.5e-7);
    g.set({ v: "big" }, 12345678901);
    g.set({ v: "negzero" }, -0);
    expect(await r.render()).toBe(
      [
        "# HELP g g",
        "# TYPE g gauge",
        'g{v="inf"} +Inf',
        'g{v="ninf"} -Inf',
        'g{v="nan"} NaN',
        'g{v="frac"} 0.25',
        'g{v="tiny"} 1.5e-7',
        'g{v="big"} 12345678901',
        'g{v="negzero"} 0',
        "",
      ].join("\n"),
    );
  });

  test("formatNumber", () => {
    expect([1, 0, -3, 0.1, Infinity, -Infinity, Number.NaN, 1e21].map(formatNumber)).toEqual(["1", "0", "-3", "0.1", "+Inf", "-Inf", "NaN", "1e+21"]);
  });
});

describe("histograms", () => {
  test("cumulative buckets with +Inf, then _sum and _count; a bound is inclusive", async () => {
    const r = new Registry();
    const h = r.histogram("delivery_seconds", "Webhook delivery time.", [0.1, 0.5, 1], ["outcome"]);
    for (const v of [0.05, 0.1, 0.3, 2]) h.observe({ outcome: "ok" }, v);
    h.observe({ outcome: "failed" }, 0.7);
    expect(await r.render()).toBe(
      [
        "# HELP delivery_seconds Webhook delivery time.",
        "# TYPE delivery_seconds histogram",
        'delivery_seconds_bucket{outcome="ok",le="0.1"} 2',
        'delivery_seconds_bucket{outcome="ok",le="0.5"} 3',
        'delivery_seconds_bucket{outcome="ok",le="1"} 3',
        'delivery_seconds_bucket{outcome="ok",le="+Inf"} 4',
        'delivery_seconds_sum{outcome="ok"} 2.45',
        'delivery_seconds_count{outcome="ok"} 4',
        'delivery_seconds_bucket{outcome="failed",le="0.1"} 0',
        'delivery_seconds_bucket{outcome="failed",le="0.5"} 0',
        'delivery_seconds_bucket{outcome="failed",le="1"} 1',
        'delivery_seconds_bucket{outcome="failed",le="+Inf"} 1',
        'delivery_seconds_sum{outcome="failed"} 0.7',
        'delivery_seconds_count{outcome="failed"} 1',
        "",
      ].join("\n"),
    );
  });

  test("an unlabelled histogram shows at zero; a listed +Inf bucket is not repeated", async () => {
    const r = new Registry();
    r.histogram("size_bytes", "Message size.", [1024, 1048576, Infinity]);
    expect(await r.render()).toBe(
      [
        "# HELP size_bytes Message size.",
        "# TYPE size_bytes histogram",
        'size_bytes_bucket{le="1024"} 0',
        'size_bytes_bucket{le="1048576"} 0',
        'size_bytes_bucket{le="+Inf"} 0',
        "size_bytes_sum 0",
        "size_bytes_count 0",
        "",
      ].join("\n"),
    );
  });

  test("negative and infinite observations land in the right buckets", async () => {
    const r = new Registry();
    const h = r.histogram("h", "h", [0]);
    h.observe({}, -5);
    h.observe({}, Infinity);
    expect(await r.render()).toBe('# HELP h h\n# TYPE h histogram\nh_bucket{le="0"} 1\nh_bucket{le="+Inf"} 2\nh_sum +Inf\nh_count 2\n');
  });

  test("buckets must be finite and strictly increasing; le is not a label name; NaN is refused", () => {
    const r = new Registry();
    expect(() => r.histogram("a", "a", [1, 1])).toThrow("histogram a: buckets must be finite and strictly increasing");
    expect(() => r.histogram("b", "b", [2, 1])).toThrow(TypeError);
    expect(() => r.histogram("c", "c", [Number.NaN])).toThrow(TypeError);
    expect(() => r.histogram("d", "d", [-Infinity, 1])).toThrow(TypeError);
    expect(() => r.histogram("e", "e", [1], ["le"])).toThrow('histogram e: "le" is the bucket label and cannot be a label name');
    expect(() => r.histogram("f", "f", [1]).observe({}, Number.NaN)).toThrow(RangeError);
  });
});

describe("names, help and escaping", () => {
  test("label values escape backslash, newline and double quote; help escapes backslash and newline", async () => {
    const r = new Registry();
    r.counter("c_total", 'Counts "things"\nwith C:\\paths.', ["path"]).inc({ path: 'C:\\dir\n"x"' });
    expect(await r.render()).toBe('# HELP c_total Counts "things"\\nwith C:\\\\paths.\n# TYPE c_total counter\nc_total{path="C:\\\\dir\\n\\"x\\""} 1\n');
  });

  test("label values may be any text, including empty and non-ASCII", async () => {
    const r = new Registry();
    const g = r.gauge("g", "g", ["v"]);
    g.set({ v: "" }, 1);
    g.set({ v: "Grüße {a=b}," }, 2);
    expect(await r.render()).toBe('# HELP g g\n# TYPE g gauge\ng{v=""} 1\ng{v="Grüße {a=b},"} 2\n');
  });

  test.each(["", "1abc", "has-dash", "has space", "é", "a.b"])("metric name %p is refused", (name) => {
    expect(() => new Registry().counter(name, "x")).toThrow(`invalid metric name ${JSON.stringify(name)}`);
    expect(() => new Registry().collect(name, "x", "gauge", () => [])).toThrow(TypeError);
  });

  test("metric names may use colons and underscores", () => {
    const r = new Registry();
    expect(() => r.counter("job:runs:rate5m", "x")).not.toThrow();
    expect(() => r.gauge("_private", "x")).not.toThrow();
  });

  test.each(["", "1a", "a-b", "a:b", "__reserved"])("label name %p is refused", (label) => {
    expect(() => new Registry().gauge("g", "g", [label])).toThrow(`metric g: invalid label name ${JSON.stringify(label)}`);
  });

  test("duplicate label names and duplicate metric names are refused", () => {
    const r = new Registry();
    expect(() => r.gauge("g", "g", ["a", "a"])).toThrow("metric g: duplicate label names");
    r.counter("dup", "x");
    expect(() => r.gauge("dup", "x")).toThrow("metric dup is already registered");
    expect(() => r.collect("dup", "x", "gauge", () => [])).toThrow("metric dup is already registered");
    expect(() => r.histogram("dup", "x", [1])).toThrow("metric dup is already registered");
  });

  test("metrics render in registration order and the content type is 0.0.4", async () => {
    const r = new Registry();
    r.gauge("b_gauge", "b");
    r.counter("a_total", "a");
    expect(await r.render()).toBe("# HELP b_gauge b\n# TYPE b_gauge gauge\nb_gauge 0\n# HELP a_total a\n# TYPE a_total counter\na_total 0\n");
    expect(PROMETHEUS_CONTENT_TYPE).toBe("text/plain; version=0.0.4; charset=utf-8");
  });

  test("an empty registry renders nothing", async () => {
    expect(await new Registry().render()).toBe("");
  });
});

describe("bounded label sets", () => {
  test("new label sets past the cap fold into one whose every value is other", async () => {
    const r = new Registry({ maxSeriesPerMetric: 2 });
    const c = r.counter("c_total", "c", ["mailbox", "kind"]);
    c.inc({ mailbox: "a", kind: "x" });
    c.inc({ mailbox: "b", kind: "x" });
    c.inc({ mailbox: "c", kind: "x" });
    c.inc({ mailbox: "d", kind: "y" }, 2);
    c.inc({ mailbox: "a", kind: "x" });
    expect(OVERFLOW_LABEL_VALUE).toBe("other");
    expect(await r.render()).toBe(
      [
        "# HELP c_total c",
        "# TYPE c_total counter",
        'c_total{mailbox="a",kind="x"} 2',
        'c_total{mailbox="b",kind="x"} 1',
        'c_total{mailbox="other",kind="other"} 3',
        "",
      ].join("\n"),
    );
  });

  test("histograms fold the same way", async () => {
    const r = new Registry({ maxSeriesPerMetric: 1 });
    const h = r.histogram("h", "h", [1], ["k"]);
    h.observe({ k: "a" }, 0.5);
    h.observe({ k: "b" }, 2);
    h.observe({ k: "c" }, 0.5);
    expect(await r.render()).toBe(
      [
        "# HELP h h",
        "# TYPE h histogram",
        'h_bucket{k="a",le="1"} 1',
        'h_bucket{k="a",le="+Inf"} 1',
        "h_sum{k=\"a\"} 0.5",
        "h_count{k=\"a\"} 1",
        'h_bucket{k="other",le="1"} 1',
        'h_bucket{k="other",le="+Inf"} 2',
        "h_sum{k=\"other\"} 2.5",
        "h_count{k=\"other\"} 2",
        "",
      ].join("\n"),
    );
  });

  test("the default cap is 2,000 label sets per metric", async () => {
    const r = new Registry();
    const g = r.gauge("g", "g", ["id"]);
    for (let i = 0; i < 5_000; i++) g.inc({ id: String(i) });
    const series = (await r.render()).split("\n").filter((l) => l.startsWith("g{"));
    expect(series).toHaveLength(2_001);
    expect(series.at(-1)).toBe('g{id="other"} 3000');
  });

  test("the cap must be a positive integer", () => {
    expect(() => new Registry({ maxSeriesPerMetric: 0 })).toThrow(RangeError);
    expect(() => new Registry({ maxSeriesPerMetric: 1.5 })).toThrow(RangeError);
  });
});

describe("collectors", () => {
  test("samples are read at each render, sync or async, as gauge or counter", async () => {
    const r = new Registry();
    let depth = 3;
    r.collect("outbox_depth", "Events waiting in the outbox.", "gauge", () => [{ value: depth }]);
    r.collect("db_lag_seconds", "Replica lag.", "gauge", async () => [
      { labels: { replica: "r1" }, value: 0.5 },
      { labels: { replica: "r2" }, value: Number.NaN },
    ]);
    r.collect("nats_reconnects_total", "Reconnects.", "counter", async () => [{ labels: {}, value: 7 }]);
    depth = 4;
    expect(await r.render()).toBe(
      [
        "# HELP outbox_depth Events waiting in the outbox.",
        "# TYPE outbox_depth gauge",
        "outbox_depth 4",
        "# HELP db_lag_seconds Replica lag.",
        "# TYPE db_lag_seconds gauge",
        'db_lag_seconds{replica="r1"} 0.5',
        'db_lag_seconds{replica="r2"} NaN',
        "# HELP nats_reconnects_total Reconnects.",
        "# TYPE nats_reconnects_total counter",
        "nats_reconnects_total 7",
        "",
      ].join("\n"),
    );
  });

  test("a collector with no samples renders only its header", async () => {
    const r = new Registry();
    r.collect("empty", "Nothing yet.", "gauge", () => []);
    expect(await r.render()).toBe("# HELP empty Nothing yet.\n# TYPE empty gauge\n");
  });

  test("collector label values are escaped", async () => {
    const r = new Registry();
    r.collect("g", "g", "gauge", () => [{ labels: { q: 'a"b\\c\nd' }, value: 1 }]);
    expect(await r.render()).toBe('# HELP g g\n# TYPE g gauge\ng{q="a\\"b\\\\c\\nd"} 1\n');
  });

  test("a collector that throws or rejects is absent from that scrape; the rest renders", async () => {
    const r = new Registry();
    let fail = true;
    r.counter("before_total", "b");
    r.collect("sync_throw", "x", "gauge", () => {
      if (fail) throw new Error("db down");
      return [{ value: 1 }];
    });
    r.collect("async_reject", "x", "gauge", async () => {
      throw new Error("db down");
    });
    r.gauge("after", "a");
    expect(await r.render()).toBe("# HELP before_total b\n# TYPE before_total counter\nbefore_total 0\n# HELP after a\n# TYPE after gauge\nafter 0\n");
    fail = false;
    expect(await r.render()).toContain("# TYPE sync_throw gauge\nsync_throw 1\n");
  });

  test("a collector answering nonsense is absent", async () => {
    const r = new Registry();
    const junk = (v: unknown) => () => v as never;
    r.collect("not_an_array", "x", "gauge", junk({ value: 1 }));
    r.collect("string_value", "x", "gauge", junk([{ value: "1" }]));
    r.collect("null_sample", "x", "gauge", junk([null]));
    r.collect("numeric_label", "x", "gauge", junk([{ labels: { a: 1 }, value: 1 }]));
    r.collect("bad_label_name", "x", "gauge", () => [{ labels: { "bad-name": "x" }, value: 1 }]);
    r.collect("reserved_label", "x", "gauge", () => [{ labels: { __name__: "x" }, value: 1 }]);
    r.collect("ok", "x", "gauge", () => [{ value: 1 }]);
    expect(await r.render()).toBe("# HELP ok x\n# TYPE ok gauge\nok 1\n");
  });

  test("a repeated label set keeps its first sample, since Prometheus rejects duplicates", async () => {
    const r = new Registry();
    r.collect("g", "g", "gauge", () => [
      { labels: { q: "a" }, value: 1 },
      { labels: { q: "a" }, value: 2 },
      { labels: { q: "b" }, value: 3 },
    ]);
    expect(await r.render()).toBe('# HELP g g\n# TYPE g gauge\ng{q="a"} 1\ng{q="b"} 3\n');
  });

  test("a collector slower than the timeout is absent and does not hold up the scrape", async () => {
    const r = new Registry({ collectTimeoutMs: 50 });
    r.collect("stalled", "x", "gauge", () => new Promise(() => {}));
    r.collect("late_reject", "x", "gauge", () => new Promise((_, reject) => setTimeout(() => reject(new Error("late")), 100)));
    r.collect("quick", "x", "gauge", async () => [{ value: 1 }]);
    // The stalled collector never settles: the scrape resolving at all is the timeout at work.
    expect(await r.render()).toBe("# HELP quick x\n# TYPE quick gauge\nquick 1\n");
    // The late rejection must not surface as an unhandled rejection.
    await Bun.sleep(80);
  });
});
