/**
 * Fake metric sources and a driver that exercises every push method of
 * `Metrics` with every label value, shared by the metrics tests.
 */
import { ENDPOINT_NAMES } from '../../src/catalogue/types.js';
import type { Metrics, MetricSources, RequestResult, TierStats, UpstreamOutcome } from '../../src/metrics/types.js';
import type { BreakerState } from '../../src/common/breaker.js';
import type { UpstreamStatus } from '../../src/upstream/types.js';

const UPSTREAMS = ['upstream-a', 'upstream-b'] as const;
const RESULTS: readonly RequestResult[] = ['HIT', 'MISS', 'STALE', 'BYPASS', 'ERROR'];
const OUTCOMES: readonly UpstreamOutcome[] = [
  'ok',
  'http_error',
  'timeout',
  'bad_response',
  'unavailable',
  'lagging',
  'cancelled',
];
const BREAKER: readonly BreakerState[] = ['closed', 'open', 'half-open'];

/** Mutable fake sources: `advance()` moves heads, sizes and breaker states like a live proxy. */
export class FakeSources implements MetricSources {
  tick = 0;
  head = 1_000_000;
  redis: boolean | null = true;

  readonly chain = {
    bestHead: (): number | null => this.head,
    finalHeight: (): number | null => this.head - 12,
  };

  advance(): void {
    this.tick++;
    if (this.tick % 5 === 0) this.head++;
  }

  tiers(): TierStats[] {
    const entries = 1000 + this.tick;
    return [
      { tier: 'memory', entries, bytes: entries * 900, maxBytes: 256 * 1024 * 1024 },
      { tier: 'redis', entries: entries * 3, bytes: entries * 2700 },
    ];
  }

  upstreams(): UpstreamStatus[] {
    return UPSTREAMS.map((name, i) => {
      const lag = i === 0 ? 0 : 1 + (this.tick % 4);
      return {
        name,
        url: `http://10.0.0.${i + 1}:3000`,
        healthy: i === 0 || this.tick % 7 !== 0,
        lagging: lag > 3,
        head: this.head - lag,
        lag,
        breaker: BREAKER[i === 0 ? 0 : Math.floor(this.tick / 3) % 3] ?? 'closed',
        inFlight: (this.tick + i) % 5,
        latencyP50Ms: 20,
        latencyP99Ms: 200,
        lastError: null,
        lastErrorAgoMs: null,
      };
    });
  }

  redisHealthy(): boolean | null {
    return this.redis;
  }
}

function statusFor(result: RequestResult, n: number): number {
  if (result === 'ERROR') return n % 2 === 0 ? 503 : 502;
  if (result === 'BYPASS') return n % 3 === 0 ? 400 : 200;
  if (result === 'MISS' && n % 11 === 0) return 404;
  if (result === 'HIT' && n % 13 === 0) return 304;
  return 200;
}

/**
 * One round of traffic: every endpoint (plus a garbage one) with every cache
 * result, upstream requests on both upstreams with every outcome, and every
 * other push method. Latencies span sub-millisecond hits to multi-second misses.
 */
function driveTraffic(metrics: Metrics, round: number): void {
  const endpoints: string[] = [...ENDPOINT_NAMES, '/../../etc/passwd?x=0xdeadbeef'];
  endpoints.forEach((endpoint, e) => {
    const n = round + e;
    // Hit-heavy mix like a real explorer front door.
    for (let i = 0; i < 6; i++) {
      metrics.request(endpoint, statusFor('HIT', n + i), 'HIT', 0.00005 + ((n + i) % 10) * 0.0001);
      metrics.upstreamSaved(endpoint);
    }
    for (const result of RESULTS)
      metrics.request(
        endpoint,
        statusFor(result, n),
        result,
        result === 'MISS' ? 0.02 + (n % 50) * 0.05 : 0.001 * (1 + (n % 5)),
      );
    metrics.upstreamSaved(endpoint); // the STALE answer
    const upstream = UPSTREAMS[n % UPSTREAMS.length] ?? 'upstream-a';
    metrics.upstreamRequest(upstream, endpoint, 'ok', 0.01 + (n % 20) * 0.02);
    metrics.upstreamRequest(
      UPSTREAMS[(n + 1) % UPSTREAMS.length] ?? 'upstream-b',
      endpoint,
      OUTCOMES[n % OUTCOMES.length] ?? 'ok',
      0.5 + (n % 3),
    );
    if (n % 2 === 0) metrics.singleFlightJoin(endpoint);
    if (n % 3 === 0) metrics.upstreamRetry(endpoint);
    if (n % 4 === 0) metrics.upstreamHedge(endpoint);
  });
  metrics.cacheEviction('memory');
  if (round % 2 === 0) metrics.cacheEviction('redis');
  for (const op of ['get', 'set', 'delete', 'publish'] as const)
    if (round % 4 === ['get', 'set', 'delete', 'publish'].indexOf(op)) metrics.tierError('redis', op);
  if (round % 3 === 0) metrics.tierError('memory', 'set');
  metrics.rateLimited();
}

/** Exercises every push method with every label value at least once. */
export function exerciseAll(metrics: Metrics): void {
  for (let round = 0; round < 8; round++) driveTraffic(metrics, round);
}
