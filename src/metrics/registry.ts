/**
 * A small, dependency-free metrics registry rendering the Prometheus text exposition format
 * 0.0.4. Metrics live in process memory: names and label names are checked when registered, so
 * a mistake fails at boot rather than at the first scrape.
 */

export type Labels = Record<string, string>;
export interface Sample {
  labels?: Labels;
  value: number;
}
export type CollectorType = "gauge" | "counter";
export type Collector = () => Promise<Sample[]> | Sample[];

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export interface RegistryOptions {
  /**
   * Distinct label sets kept per metric; further new sets are folded into one whose every label
   * value is "other", so an unbounded value (an id that slipped into a label) cannot grow memory.
   */
  maxSeriesPerMetric?: number;
  /** A collector slower than this is left out of the scrape rather than holding it up. */
  collectTimeoutMs?: number;
}

const METRIC_NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
export const OVERFLOW_LABEL_VALUE = "other";

/** One metric's series, keyed by its label values in labelNames order. */
class Family<S> {
  readonly series = new Map<string, { values: readonly string[]; state: S }>();
  private readonly overflowValues: readonly string[];

  constructor(
    readonly name: string,
    readonly labelNames: readonly string[],
    private readonly maxSeries: number,
    private readonly init: () => S,
  ) {
    this.overflowValues = labelNames.map(() => OVERFLOW_LABEL_VALUE);
    // A metric without labels has exactly one series; showing it from the start (at zero)
    // lets rate() and absent() work before the first event.
    if (labelNames.length === 0) this.get(undefined);
  }

  get(labels: Labels | undefined): S {
    let values: readonly string[] = this.valuesOf(labels);
    let key = JSON.stringify(values);
    let entry = this.series.get(key);
    if (entry === undefined && this.series.size >= this.maxSeries) {
      values = this.overflowValues;
      key = JSON.stringify(values);
      entry = this.series.get(key);
    }
    if (entry === undefined) {
      entry = { values, state: this.init() };
      this.series.set(key, entry);
    }
    return entry.state;
  }

  private valuesOf(labels: Labels | undefined): string[] {
    const given = labels ?? {};
    const keys = Object.keys(given);
    const mismatch = () => new TypeError(`metric ${this.name} takes labels [${this.labelNames.join(", ")}], got [${keys.join(", ")}]`);
    if (keys.length !== this.labelNames.length) throw mismatch();
    const values: string[] = [];
    for (const name of this.labelNames) {
      const value = given[name];
      if (typeof value !== "string") throw mismatch();
      values.push(value);
    }
    return values;
  }
}

export class Counter {
  constructor(private readonly family: Family<{ value: number }>) {}

  inc(labels?: Labels, by = 1): void {
    if (!(by >= 0) || by === Infinity) throw new RangeError(`counter ${this.family.name} can only grow by a finite amount ≥ 0, got ${by}`);
    this.family.get(labels).value += by;
  }

  /** One series, looked up once: for a caller that counts the same labels on every request. */
  series(labels?: Labels): () => void {
    const state = this.family.get(labels);
    return () => void state.value++;
  }
}

export class Gauge {
  constructor(private readonly family: Family<{ value: number }>) {}

  set(labels: Labels, value: number): void {
    this.family.get(labels).value = value;
  }

  inc(labels?: Labels, by = 1): void {
    this.family.get(labels).value += by;
  }

  dec(labels?: Labels, by = 1): void {
    this.family.get(labels).value -= by;
  }
}

interface HistogramState {
  /** Observations per bucket, not yet cumulative; the last slot is +Inf. */
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram {
  constructor(
    private readonly family: Family<HistogramState>,
    private readonly bounds: readonly number[],
  ) {}

  observe(labels: Labels, value: number): void {
    this.record(this.family.get(labels), value);
  }

  /** One series, looked up once (see Counter.series). */
  series(labels: Labels): (value: number) => void {
    const state = this.family.get(labels);
    return (value) => this.record(state, value);
  }

  private record(state: HistogramState, value: number): void {
    if (Number.isNaN(value)) throw new RangeError(`histogram ${this.family.name} cannot observe NaN`);
    // A loop, not findIndex: no closure made on every request.
    let index = 0;
    while (index < this.bounds.length && value > this.bounds[index]!) index++;
    state.counts[index] = (state.counts[index] ?? 0) + 1;
    state.sum += value;
    state.count += 1;
  }
}

type Metric =
  | { type: "counter" | "gauge"; name: string; help: string; family: Family<{ value: number }> }
  | { type: "histogram"; name: string; help: string; family: Family<HistogramState>; bounds: readonly number[] }
  | { type: "collector"; name: string; help: string; as: CollectorType; read: Collector };

export class Registry {
  private readonly metrics = new Map<string, Metric>();
  private readonly maxSeries: number;
  private readonly collectTimeoutMs: number;

  constructor(options: RegistryOptions = {}) {
    this.maxSeries = options.maxSeriesPerMetric ?? 2_000;
    this.collectTimeoutMs = options.collectTimeoutMs ?? 5_000;
    if (!(Number.isInteger(this.maxSeries) && this.maxSeries >= 1)) throw new RangeError("maxSeriesPerMetric must be a positive integer");
  }

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    const family = this.family(name, labelNames, () => ({ value: 0 }));
    this.add({ type: "counter", name, help, family });
    return new Counter(family);
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): Gauge {
    const family = this.family(name, labelNames, () => ({ value: 0 }));
    this.add({ type: "gauge", name, help, family });
    return new Gauge(family);
  }

  histogram(name: string, help: string, buckets: readonly number[], labelNames: readonly string[] = []): Histogram {
    if (labelNames.includes("le")) throw new TypeError(`histogram ${name}: "le" is the bucket label and cannot be a label name`);
    // +Inf is always the last bucket; listing it is allowed but adds nothing.
    const bounds = buckets.filter((b) => b !== Infinity);
    bounds.forEach((b, i) => {
      if (!Number.isFinite(b) || (i > 0 && b <= bounds[i - 1]!)) throw new TypeError(`histogram ${name}: buckets must be finite and strictly increasing`);
    });
    const family = this.family(name, labelNames, () => ({ counts: new Array<number>(bounds.length + 1).fill(0), sum: 0, count: 0 }));
    this.add({ type: "histogram", name, help, family, bounds });
    return new Histogram(family, bounds);
  }

  /** Gauges whose values are read at render time (queue depths, DB lag); the callback may be async and returns labelled samples. */
  collect(name: string, help: string, type: CollectorType, read: Collector): void {
    checkMetricName(name);
    this.add({ type: "collector", name, help, as: type, read });
  }

  /** The exposition text; a collector that throws, times out or answers nonsense is left out of this scrape. */
  async render(): Promise<string> {
    const metrics = [...this.metrics.values()];
    const blocks = await Promise.all(metrics.map((m) => (m.type === "collector" ? this.renderCollector(m) : renderStored(m))));
    return blocks.filter((b) => b !== null).join("");
  }

  private family<S>(name: string, labelNames: readonly string[], init: () => S): Family<S> {
    checkMetricName(name);
    for (const label of labelNames) checkLabelName(name, label);
    if (new Set(labelNames).size !== labelNames.length) throw new TypeError(`metric ${name}: duplicate label names`);
    return new Family(name, [...labelNames], this.maxSeries, init);
  }

  private add(metric: Metric): void {
    if (this.metrics.has(metric.name)) throw new TypeError(`metric ${metric.name} is already registered`);
    this.metrics.set(metric.name, metric);
  }

  private async renderCollector(m: Extract<Metric, { type: "collector" }>): Promise<string | null> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), this.collectTimeoutMs);
    });
    try {
      const samples = await Promise.race([Promise.resolve().then(m.read), timeout]);
      if (!Array.isArray(samples)) return null;
      const lines: string[] = [];
      const seen = new Set<string>();
      for (const sample of samples) {
        const labels = Object.entries(sample.labels ?? {});
        for (const [label] of labels) checkLabelName(m.name, label);
        if (typeof sample.value !== "number" || labels.some(([, v]) => typeof v !== "string")) return null;
        const labelText = renderLabels(labels);
        // A series twice in one scrape makes Prometheus reject the sample; keep the first.
        if (seen.has(labelText)) continue;
        seen.add(labelText);
        lines.push(`${m.name}${labelText} ${formatNumber(sample.value)}\n`);
      }
      return header(m.name, m.help, m.as) + lines.join("");
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  }
}

function renderStored(m: Exclude<Metric, { type: "collector" }>): string {
  let out = header(m.name, m.help, m.type);
  if (m.type !== "histogram") {
    for (const { values, state } of m.family.series.values()) {
      out += `${m.name}${renderLabels(zip(m.family.labelNames, values))} ${formatNumber(state.value)}\n`;
    }
    return out;
  }
  for (const { values, state } of m.family.series.values()) {
    const labels = zip(m.family.labelNames, values);
    let cumulative = 0;
    state.counts.forEach((count, i) => {
      cumulative += count;
      const le = formatNumber(m.bounds[i] ?? Infinity);
      out += `${m.name}_bucket${renderLabels([...labels, ["le", le]])} ${formatNumber(cumulative)}\n`;
    });
    out += `${m.name}_sum${renderLabels(labels)} ${formatNumber(state.sum)}\n`;
    out += `${m.name}_count${renderLabels(labels)} ${formatNumber(state.count)}\n`;
  }
  return out;
}

const zip = (names: readonly string[], values: readonly string[]): [string, string][] => names.map((n, i) => [n, values[i] ?? ""]);

function header(name: string, help: string, type: string): string {
  return `# HELP ${name} ${help.replaceAll("\\", "\\\\").replaceAll("\n", "\\n")}\n# TYPE ${name} ${type}\n`;
}

function renderLabels(labels: readonly (readonly [string, string])[]): string {
  if (labels.length === 0) return "";
  return `{${labels.map(([n, v]) => `${n}="${escapeLabelValue(v)}"`).join(",")}}`;
}

const escapeLabelValue = (value: string) => value.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll('"', '\\"');

/** Prometheus reads Go float syntax: integers plain, +Inf/-Inf/NaN spelled out. */
export function formatNumber(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

function checkMetricName(name: string): void {
  if (!METRIC_NAME_RE.test(name)) throw new TypeError(`invalid metric name ${JSON.stringify(name)}`);
}

function checkLabelName(metric: string, label: string): void {
  // Names starting with "__" are reserved for Prometheus itself.
  if (!LABEL_NAME_RE.test(label) || label.startsWith("__")) throw new TypeError(`metric ${metric}: invalid label name ${JSON.stringify(label)}`);
}
