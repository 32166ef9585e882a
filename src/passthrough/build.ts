/**
 * The passthrough cache, assembled once: a Resolver of its own (the same
 * class, tiers and single flight as the API's, over the same memory and
 * shared tiers and purge judge) with the passthrough fetcher, the table of
 * routes and their metrics. Built without PASSTHROUGH too (an empty table),
 * so a reload may add the first prefix.
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
import type { PassthroughConfig } from '../config/types.js';
import { PassFetcher, type PassLimits } from './fetcher.js';
import { createPassthroughMetrics, type PassthroughMetrics } from './metrics.js';
import type { PassRequest } from './request.js';
import { PassTable } from './route-table.js';

export interface PassCache {
  resolver: Resolver<PassRequest>;
  fetcher: PassFetcher;
  table: PassTable;
  metrics: PassthroughMetrics;
  /** PASSTHROUGH_TIMEOUT_MS and PASSTHROUGH_CACHE_MAX_BODY_BYTES as last reloaded. */
  limits: Readonly<PassLimits>;
  /** A reload's passthrough settings, in force from the next request; true when a route changed. */
  reconfigure(p: PassthroughConfig): boolean;
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

export function buildPassCache(d: PassCacheDeps): PassCache {
  const p = d.config.passthrough;
  const table = new PassTable(p);
  const metrics = createPassthroughMetrics(
    d.registry,
    table.live.map((r) => r.prefix),
  );
  const limits: PassLimits = { timeoutMs: p.timeoutMs, maxBodyBytes: p.cacheMaxBodyBytes };
  const fetcher = new PassFetcher({
    chain: d.chain,
    clock: d.clock,
    limits,
    connectTimeoutMs: d.config.upstream.connectTimeoutMs,
    connections: d.config.upstream.connections,
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
  const reconfigure = (next: PassthroughConfig): boolean => {
    limits.timeoutMs = next.timeoutMs;
    limits.maxBodyBytes = next.cacheMaxBodyBytes;
    const change = table.apply(next);
    for (const prefix of change.added) metrics.adopt(prefix);
    return change.changed;
  };
  return { resolver, fetcher, table, metrics, limits, reconfigure };
}
