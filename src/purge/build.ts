/**
 * Purge, assembled once: the marks (bounded by PURGE_MAX_MARKS and the
 * horizon), the judge the resolver and pages ask, the shared tier as read
 * through the marks, the purger and its metrics.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { TagJudge } from '../cache/entry.js';
import type { MemoryStore } from '../cache/memory-store.js';
import type { CacheEntry, CacheStore } from '../cache/types.js';
import type { Catalogue } from '../catalogue/index.js';
import type { ParamLimits } from '../endpoints/types.js';
import type { InvalidationConfig, RedisConfig } from '../config/types.js';
import type { Fleet } from '../fleet/connect.js';
import type { Bus } from '../fleet/link.js';
import type { Metrics } from '../metrics/types.js';
import { PAGE_KEPT_MS } from '../cache/lifetime.js';
import { EntryTags } from './entry-tags.js';
import { FleetMarks } from './fleet-marks.js';
import { withPurges } from './judge.js';
import { PurgeMarks } from './marks.js';
import { registerPurgeMetrics } from './metrics.js';
import { Purger } from './purger.js';
import { purgedSecondTier } from './second-tier.js';

/**
 * Targets held at most (each a cache key or a tag, ~100 bytes); the oldest beyond are folded into "everything before".
 */
export const PURGE_MAX_MARKS = 4096;

export interface Purge {
  purger: Purger;
  /** Purges in front of precise invalidation: the judge of every lookup. */
  judge: TagJudge;
  /** The shared tier read through the marks (null: no Redis). */
  second: CacheStore | null;
  /** The policies changed (a reload): the horizon grows to the new longest life, never shrinks (old entries stay). */
  policiesChanged(): void;
}

export interface PurgeDeps {
  catalogue: Catalogue;
  limits: ParamLimits;
  invalidation: InvalidationConfig;
  redis: RedisConfig;
  memory: MemoryStore;
  fleet: Fleet | null;
  /** Without Redis, the other workers of this machine (WORKERS > 1); null: none. */
  peers: Bus | null;
  /** Precise invalidation's judge (null: the head rule). */
  base: TagJudge | null;
  registry: Registry;
  metrics: Metrics;
  clock: () => number;
  logger: Logger;
}

/**
 * The longest an entry can live after it was made: its longest freshness
 * (policies, the tag-kept bounds and what they may earn) and stale window,
 * twice (finality promotion starts a second life). A mark older than this
 * can purge nothing.
 */
export function purgeHorizonMs(catalogue: Catalogue, inv: InvalidationConfig): number {
  const byEndpoint = Object.values(inv.maxAgeByEndpoint).filter((v): v is number => typeof v === 'number');
  const tagKept = Math.max(inv.maxAgeMs, inv.listMaxAgeMs, ...byEndpoint) * Math.max(1, inv.maxAgeGrowth);
  let life = PAGE_KEPT_MS;
  for (const { policy: p } of catalogue.all()) {
    life = Math.max(
      life,
      Math.max(p.ttlMs, p.finalTtlMs, p.volatileTtlMs, p.negativeTtlMs, tagKept) + Math.max(p.swrMs, p.sieMs),
    );
  }
  return 2 * life;
}

export function buildPurge(d: PurgeDeps): Purge {
  const tags = new EntryTags(d.catalogue, d.limits);
  const horizonMs = purgeHorizonMs(d.catalogue, d.invalidation);
  // Both kinds of marks read their horizon from these options at each use.
  const local = { cap: PURGE_MAX_MARKS, horizonMs, clock: d.clock, tagsOf: (e: CacheEntry) => tags.of(e) };
  const marks = new PurgeMarks(local);
  const metrics = registerPurgeMetrics(d.registry, () => marks.size);
  const f = d.fleet;
  const shared =
    f === null
      ? null
      : {
          guard: {
            client: f.client,
            breaker: f.store.breaker,
            timeoutMs: d.redis.commandTimeoutMs,
            metrics: d.metrics,
          },
          keyPrefix: d.redis.keyPrefix,
          horizonMs,
          cap: PURGE_MAX_MARKS,
          clock: d.clock,
        };
  const fleet =
    f === null || shared === null
      ? null
      : {
          marks: new FleetMarks(shared),
          bus: f.bus,
          redisKey: (key: string) => f.store.redisKey(key),
        };
  const purger = new Purger({
    marks,
    tags,
    memory: d.memory,
    fleet,
    peers: d.peers,
    metrics,
    clock: d.clock,
    logger: d.logger,
  });
  const policiesChanged = (): void => {
    local.horizonMs = Math.max(local.horizonMs, purgeHorizonMs(d.catalogue, d.invalidation));
    if (shared !== null) shared.horizonMs = local.horizonMs;
  };
  return {
    purger,
    judge: withPurges(marks, d.base),
    second: f === null ? null : purgedSecondTier(f.store, marks),
    policiesChanged,
  };
}
