/**
 * Minimal metric families that plug into a prom-client Registry without
 * prom-client's per-call label hashing:
 *
 * - `DenseCounter` / `DenseHistogram`: every label combination is known up
 *   front (bounded enums) and addressed by an integer series index, so the
 *   hot path is a couple of typed-array writes. Series appear once touched.
 * - `CallbackGauge`: samples produced at scrape time by a callback (sizes,
 *   heads, breaker states), so a null value simply yields no series.
 *
 * The registry only calls `get()` / `reset()` and reads `name`/`type`;
 * `register()` is the one place that bridges to prom-client's `Metric` type.
 */
import type { Metric, Registry } from 'prom-client';

export type Labels = Record<string, string>;

interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

interface MetricSnapshot {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  aggregator: 'sum';
  values: Sample[];
}

abstract class CustomMetric {
  readonly aggregator = 'sum' as const;
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge' | 'histogram',
  ) {}

  protected abstract samples(): Sample[];

  reset(): void {}

  async get(): Promise<MetricSnapshot> {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.samples() };
  }

  register(registry: Registry): this {
    // prom-client types its registry against its own classes; at runtime it
    // needs only name, help, type, get() and reset(), which this provides.
    registry.registerMetric(this as unknown as Metric);
    return this;
  }
}

/** Counter over a fixed list of label sets; `inc(i)` is one array write. */
export class DenseCounter extends CustomMetric {
  private readonly counts: Float64Array;

  constructor(
    name: string,
    help: string,
    private readonly series: readonly Labels[],
  ) {
    super(name, help, 'counter');
    this.counts = new Float64Array(series.length);
  }

  inc(index: number, by = 1): void {
    this.counts[index] = (this.counts[index] ?? 0) + by;
  }

  override reset(): void {
    this.counts.fill(0);
  }

  protected samples(): Sample[] {
    const out: Sample[] = [];
    for (let i = 0; i < this.series.length; i++) {
      const v = this.counts[i] ?? 0;
      const labels = this.series[i];
      if (v > 0 && labels !== undefined) out.push({ labels, value: v });
    }
    return out;
  }
}

/** Histogram over a fixed list of label sets; `observe(i, v)` is a bucket scan and three writes. */
export class DenseHistogram extends CustomMetric {
  private readonly bounds: readonly number[];
  private readonly width: number;
  /** Non-cumulative bucket counts; slot `width - 1` of each series is +Inf. */
  private readonly buckets: Float64Array;
  private readonly sums: Float64Array;

  constructor(
    name: string,
    help: string,
    buckets: readonly number[],
    private readonly series: readonly Labels[],
  ) {
    super(name, help, 'histogram');
    this.bounds = [...buckets].sort((a, b) => a - b);
    this.width = this.bounds.length + 1;
    this.buckets = new Float64Array(series.length * this.width);
    this.sums = new Float64Array(series.length);
  }

  observe(index: number, value: number): void {
    if (!(value >= 0) || !Number.isFinite(value)) return; // NaN, negative, Infinity: dropped
    const bounds = this.bounds;
    let b = 0;
    while (b < bounds.length && value > (bounds[b] ?? Infinity)) b++;
    const slot = index * this.width + b;
    this.buckets[slot] = (this.buckets[slot] ?? 0) + 1;
    this.sums[index] = (this.sums[index] ?? 0) + value;
  }

  override reset(): void {
    this.buckets.fill(0);
    this.sums.fill(0);
  }

  protected samples(): Sample[] {
    const out: Sample[] = [];
    const bucketName = `${this.name}_bucket`;
    for (let i = 0; i < this.series.length; i++) {
      const labels = this.series[i];
      if (labels === undefined) continue;
      const base = i * this.width;
      let total = 0;
      for (let b = 0; b < this.width; b++) total += this.buckets[base + b] ?? 0;
      if (total === 0) continue;
      let acc = 0;
      for (let b = 0; b < this.bounds.length; b++) {
        acc += this.buckets[base + b] ?? 0;
        out.push({ metricName: bucketName, labels: { ...labels, le: String(this.bounds[b]) }, value: acc });
      }
      out.push({ metricName: bucketName, labels: { ...labels, le: '+Inf' }, value: total });
      out.push({ metricName: `${this.name}_sum`, labels, value: this.sums[i] ?? 0 });
      out.push({ metricName: `${this.name}_count`, labels, value: total });
    }
    return out;
  }
}

/** Gauge whose samples come from a callback at scrape time; a throwing callback yields no samples. */
export class CallbackGauge extends CustomMetric {
  constructor(
    name: string,
    help: string,
    private readonly read: () => Array<{ labels: Labels; value: number }>,
  ) {
    super(name, help, 'gauge');
  }

  protected samples(): Sample[] {
    try {
      return this.read().filter((s) => Number.isFinite(s.value));
    } catch {
      return [];
    }
  }
}
