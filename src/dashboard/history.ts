/**
 * The status page's memory: the last 15 minutes of the registry, sampled once
 * a second off the request path (per-endpoint latency every 10 s). Bounded:
 * 900 one-second points, 16 one-minute readings (per-endpoint counters and
 * latency buckets) and event counts per kind and minute; about 0.5 MB with
 * every endpoint and two failing upstreams (docs/operations.md).
 */
import type { Registry } from 'prom-client';
import { EventLog, eventsBetween, type EventGroup } from './events.js';
import { bucketQuantile, takeReading, type Reading } from './reading.js';

const HISTORY_MS = 15 * 60_000;
export const POINTS = 900;
const MINUTE_MS = 60_000;
const MINUTES = 16;
/** Upstream percentiles of a point cover the observations of this many seconds. */
export const LATENCY_SECONDS = 5;
/** Per-endpoint latency buckets are read every this many samples (and with each minute reading). */
const ENDPOINT_BUCKETS_EVERY = 10;

/** One second: cumulative counters (rates are their differences) and upstream latency. */
export interface Point {
  t: number;
  requests: number;
  hits: number;
  s4xx: number;
  s5xx: number;
  shed: number;
  rateLimited: number;
  upstreamP50Ms: number | null;
  upstreamP99Ms: number | null;
}

interface EndpointRow {
  endpoint: string;
  requests: number;
  hitRatio: number | null;
  p99Ms: number | null;
}

export interface HistoryView {
  now: number;
  /** Start of the window the totals cover (at most 15 minutes back). */
  since: number;
  points: Point[];
  endpoints: EndpointRow[];
  byStatus: Record<string, number>;
  counters: {
    shed: number;
    rateLimited: number;
    missBudgetRefused: number;
    unknownKeys: number;
    streamsRefused: number;
    streamEvents: number;
    passthrough: number;
    passthroughFailures: number;
    rebases: number;
    quorumDisputes: number;
    streamsOpen: number;
  };
  events: EventGroup[];
}

const ms = (s: number | null): number | null => (s === null ? null : Math.round(s * 10_000) / 10);

export class History {
  private readonly points: Point[] = [];
  private readonly minutes: Array<{ t: number; reading: Reading }> = [];
  private readonly recent: Reading[] = [];
  private readonly events = new EventLog(MINUTES);
  private readonly everUp = new Set<string>();
  private taken = 0;
  /** The latest reading with per-endpoint latency buckets. */
  private withBuckets: Reading | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly registry: Registry,
    private readonly now: () => number = Date.now,
  ) {}

  /** Samples every second until stop(); the timer never holds the process open. */
  start(): void {
    if (this.timer !== null) return;
    // A failed reading loses one point; it must never reach the process as an unhandled rejection.
    const tick = (): void => void this.sample().catch(() => undefined);
    tick();
    this.timer = setInterval(tick, 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  async sample(): Promise<void> {
    const t = this.now();
    const lastMinute = this.minutes[this.minutes.length - 1];
    const minuteDue = lastMinute === undefined || t - lastMinute.t >= MINUTE_MS;
    const buckets = minuteDue || this.taken++ % ENDPOINT_BUCKETS_EVERY === 0;
    const reading = await takeReading(this.registry, buckets);
    if (buckets) this.withBuckets = reading;
    const prev = this.recent[this.recent.length - 1];
    if (prev !== undefined) this.events.add(eventsBetween(prev, reading, t, this.everUp));
    const base = this.recent.length >= LATENCY_SECONDS ? this.recent[this.recent.length - LATENCY_SECONDS]! : null;
    this.recent.push(reading);
    if (this.recent.length > LATENCY_SECONDS) this.recent.shift();
    this.points.push({
      t,
      requests: reading.requests,
      hits: reading.hits,
      s4xx: reading.byStatus['4xx'] ?? 0,
      s5xx: reading.byStatus['5xx'] ?? 0,
      shed: reading.shed,
      rateLimited: reading.rateLimited,
      upstreamP50Ms: ms(bucketQuantile(0.5, reading.upstreamBuckets, base?.upstreamBuckets ?? null)),
      upstreamP99Ms: ms(bucketQuantile(0.99, reading.upstreamBuckets, base?.upstreamBuckets ?? null)),
    });
    if (this.points.length > POINTS) this.points.shift();
    if (minuteDue) {
      this.minutes.push({ t, reading });
      if (this.minutes.length > MINUTES) this.minutes.shift();
    }
  }

  /** Points after `after` (all of them by default) and the totals of the window. */
  view(after = 0): HistoryView {
    const now = this.now();
    const latest = this.recent[this.recent.length - 1] ?? null;
    const start = this.minutes.find((m) => m.t >= now - HISTORY_MS) ?? this.minutes[this.minutes.length - 1] ?? null;
    const from = start?.reading ?? null;
    const d = (pick: (r: Reading) => number): number =>
      latest === null ? 0 : pick(latest) - (from === null ? 0 : pick(from));
    const endpoints: EndpointRow[] = [];
    for (const [endpoint, e] of Object.entries(latest?.endpoints ?? {})) {
      const was = from?.endpoints[endpoint];
      const requests = e.requests - (was?.requests ?? 0);
      if (requests <= 0) continue;
      const latency = this.withBuckets?.endpoints[endpoint]?.buckets ?? null;
      const p99Ms = latency === null ? null : ms(bucketQuantile(0.99, latency, was?.buckets ?? null));
      endpoints.push({ endpoint, requests, hitRatio: (e.hits - (was?.hits ?? 0)) / requests, p99Ms });
    }
    endpoints.sort((a, b) => b.requests - a.requests);
    const byStatus: Record<string, number> = {};
    for (const [k, v] of Object.entries(latest?.byStatus ?? {})) byStatus[k] = v - (from?.byStatus[k] ?? 0);
    const since = start?.t ?? now;
    return {
      now,
      since,
      points: this.points.filter((p) => p.t > after),
      endpoints,
      byStatus,
      counters: {
        shed: d((r) => r.shed),
        rateLimited: d((r) => r.rateLimited),
        missBudgetRefused: d((r) => r.missBudgetRefused),
        unknownKeys: d((r) => r.unknownKeys),
        streamsRefused: d((r) => r.streamsRefused),
        streamEvents: d((r) => r.streamEvents),
        passthrough: d((r) => r.passthrough),
        passthroughFailures: d((r) => r.passthroughFailures),
        rebases: d((r) => r.rebases),
        quorumDisputes: d((r) => r.quorumDisputes),
        streamsOpen: latest?.streamsOpen ?? 0,
      },
      events: this.events.grouped(now - HISTORY_MS),
    };
  }
}
