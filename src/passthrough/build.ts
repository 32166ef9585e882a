/**
 * The passthrough cache, assembled once: a Resolver of its own (the same
 * class, tiers and single flight as the API's, over the same memory and
 * shared tiers and purge judge) with the passthrough fetcher, the compiled
 * routes and their metrics. Null without PASSTHROUGH.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { TagJudge } from '../cache/entry.js';
import type { MemoryStore } from '../cache/memory-store.js';
import type { CacheStore } from '../cache/types.js';
import type { ChainFeedback, ChainView } from '../chain/types.js';
import type { Config } from '../config/types.js';
import type { FleetCoordinator } from '../fleet/connect.js';
import type { Metrics } from '../metrics/types.js';
import { Resolver } from '../pipeline/resolver.js';
import { Unstored } from './backend-answer.js';
import { PassFetcher } from './fetcher.js';
import { createPassthroughMetrics, type PassthroughMetrics } from './metrics.js';
import { compileRoute, type PassRequest, type PassRoute } from './request.js';

export interface PassCache {
  resolver: Resolver<PassRequest>;
  fetcher: PassFetcher;
  routes: readonly PassRoute[];
  metrics: PassthroughMetrics;
}

export interface PassCacheDeps {
  config: Config;
  memory: MemoryStore;
  second: CacheStore | null;
  fleet: FleetCoordinator | null;
  chain: ChainView & ChainFeedback;
  metrics: Metrics;
  registry: Registry;
  clock: () => number;
  logger: Logger;
  /** Purges (and precise invalidation, which passes passthrough entries by). */
  tags: TagJudge;
}

export function buildPassCache(d: PassCacheDeps): PassCache | null {
  const p = d.config.passthrough;
  if (p.routes.length === 0) return null;
  const routes = p.routes.map((r) => compileRoute(r, p.cache[r.prefix], p.ignoreParams));
  const metrics = createPassthroughMetrics(
    d.registry,
    routes.map((r) => r.prefix),
  );
  const fetcher = new PassFetcher({
    chain: d.chain,
    clock: d.clock,
    timeoutMs: p.timeoutMs,
    connectTimeoutMs: d.config.upstream.connectTimeoutMs,
    connections: d.config.upstream.connections,
    maxBodyBytes: p.cacheMaxBodyBytes,
    tooBig: (prefix) => metrics.tooBig(prefix),
  });
  const resolver = new Resolver<PassRequest>({
    memory: d.memory,
    second: d.second,
    fetcher,
    chain: d.chain,
    fleet: d.fleet,
    metrics: d.metrics,
    clock: d.clock,
    logger: d.logger,
    headGuard: null,
    tags: d.tags,
    // An answer the cache does not keep is the backend's answer, not a failure a stale copy stands in for.
    staleFor: (e) => !(e instanceof Unstored),
  });
  return { resolver, fetcher, routes, metrics };
}
