import type { CacheResult } from '../cache/types.js';
import type { ChainView } from '../chain/types.js';
import type { Purpose, UpstreamStatus } from '../upstream/types.js';

/** Cache result label of a client answer: its X-Cache word (ERROR: an error envelope the proxy made, 4xx or 5xx). */
export type RequestResult = CacheResult | 'ERROR';
export type UpstreamOutcome =
  'ok' | 'http_error' | 'timeout' | 'bad_response' | 'unavailable' | 'lagging' | 'cancelled';
export type TierName = 'memory' | 'redis';
export type TierOp = 'get' | 'set' | 'delete' | 'publish';

/**
 * Counts one client answer under `label` (an endpoint, a page, a route): the
 * one signature of every request metric family (src/http/epilogue.ts calls it).
 */
export type CountAnswer = (label: string, status: number, result: RequestResult, seconds: number) => void;

/**
 * Events the components push. Label values come only from bounded sets
 * (catalogue endpoint names, configured upstream names, fixed enums).
 * Gauges (sizes, heads, breaker states) are pulled at scrape time from
 * `MetricSources` instead.
 */
export interface Metrics {
  request: CountAnswer;
  upstreamRequest(upstream: string, endpoint: string, outcome: UpstreamOutcome, seconds: number): void;
  /** An upstream request the proxy made for itself (head probes included), by why. */
  upstreamBackground(purpose: Purpose): void;
  upstreamRetry(endpoint: string): void;
  upstreamHedge(endpoint: string): void;
  singleFlightJoin(endpoint: string): void;
  /** A request answered without an upstream request (hit, stale, joined flight). */
  upstreamSaved(endpoint: string): void;
  cacheEviction(tier: TierName): void;
  tierError(tier: TierName, op: TierOp): void;
  rateLimited(): void;
}

export const noopMetrics: Metrics = {
  request() {},
  upstreamRequest() {},
  upstreamBackground() {},
  upstreamRetry() {},
  upstreamHedge() {},
  singleFlightJoin() {},
  upstreamSaved() {},
  cacheEviction() {},
  tierError() {},
  rateLimited() {},
};

/** Size of one cache tier at scrape time. */
export interface TierStats {
  tier: TierName;
  entries: number;
  bytes: number;
  /** Configured capacity, when the tier has one. */
  maxBytes?: number | undefined;
}

/**
 * State pulled at scrape time (gauges), so components never push sizes,
 * heads or breaker states. Every callback must be cheap and must not throw.
 */
export interface MetricSources {
  tiers(): TierStats[];
  upstreams(): UpstreamStatus[];
  chain: ChainView;
  /** Redis tier health; null when no Redis tier is configured (no series then). */
  redisHealthy(): boolean | null;
}
