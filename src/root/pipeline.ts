/**
 * The pipeline builder: the fetch stage over the pool, operator purges, the
 * resolver, the passthrough cache and the head entry (subscribed to the
 * probes' heads). A cluster worker lends its fresh entries from here on.
 */
import { MemoryAdmission } from '../cache/admission.js';
import { canonicalize } from '../catalogue/canonicalize.js';
import { EarnedBounds } from '../invalidation/earned.js';
import { UnchangedCount } from '../invalidation/unchanged-count.js';
import { registerAdmissionMetrics } from '../metrics/admission.js';
import { registerRefetchMetrics, type RefetchMetrics } from '../metrics/refetch.js';
import { buildPassCache, type PassCache } from '../passthrough/build.js';
import { FetchStage } from '../pipeline/fetch-stage.js';
import { HeadEntry } from '../pipeline/head-entry.js';
import { HeadGuard } from '../pipeline/head-guard.js';
import { Resolver } from '../pipeline/resolver.js';
import { buildPurge, type Purge } from '../purge/build.js';
import type { Basics } from './basics.js';
import type { CacheStages } from './cache.js';
import type { ChainStages } from './chain.js';
import type { FleetStages } from './fleet.js';
import type { UpstreamStages } from './upstreams.js';

export interface PipelineStages {
  fetcher: FetchStage;
  /** Operator purges (src/purge/build.ts). */
  purge: Purge;
  resolver: Resolver;
  refetches: RefetchMetrics;
  /** Head mode's unchanged refetches by what ended the entry (precise mode counts its own). */
  headRefetches: UnchangedCount;
  /** Built without PASSTHROUGH too: a reload may add prefixes. */
  passthrough: PassCache;
}

export function buildPipeline(
  b: Basics,
  { catalogue, tracker }: ChainStages,
  { memory, invalidation, scored, hot }: CacheStages,
  { fleet, workerFleet, coordinator }: FleetStages,
  { pool, quorum, heads }: UpstreamStages,
): PipelineStages {
  const { config, logger, clock, prom } = b;
  const headGuard = new HeadGuard(tracker, clock);
  // Head mode names nothing and earns no bound, but counts its unchanged refetches by what ended them too.
  const headRefetches = new UnchangedCount();
  const earned = new EarnedBounds({
    growth: config.invalidation.maxAgeGrowth,
    named: invalidation === null ? () => false : (e) => invalidation.clock.named(e, tracker),
    clock,
    onUnnamed: invalidation?.metrics.unnamed ?? (() => {}),
    headMoved: (e) => e.headDependent && e.head !== null && (tracker.bestHead() ?? -1) > e.head,
    onUnchanged: invalidation?.metrics.unchanged ?? headRefetches.unchanged,
  });
  const fetcher = new FetchStage({
    pool,
    chain: tracker,
    headGuard,
    publicBaseUrl: config.publicBaseUrl,
    clock,
    quorum,
    precise: invalidation?.rule ?? null,
    tagHeaders: config.cacheTagHeaders,
    guarded: invalidation?.metrics.guarded ?? null,
    settle: earned.settle,
  });
  // Purges judge every lookup in front of precise invalidation, and filter what the shared tier returns.
  const purge = buildPurge({
    catalogue,
    limits: config.limits,
    invalidation: config.invalidation,
    redis: config.redis,
    memory,
    fleet,
    peers: fleet === null ? (workerFleet?.link.bus ?? null) : null,
    base: invalidation?.clock ?? null,
    registry: prom.registry,
    metrics: prom.metrics,
    clock,
    logger,
  });
  const refetches = registerRefetchMetrics(prom.registry);
  const resolver = new Resolver({
    memory,
    second: purge.second,
    fetcher,
    chain: tracker,
    fleet: coordinator,
    metrics: prom.metrics,
    clock,
    logger,
    headGuard,
    observe: scored ? hot.seen : null,
    tags: purge.judge,
    refetched: refetches.refetched,
    admission: new MemoryAdmission({ onVerdict: registerAdmissionMetrics(prom.registry) }),
  });
  workerFleet?.lendFrom((key) => resolver.freshHeld(key));
  const passthrough = buildPassCache({
    config,
    memory,
    second: purge.second,
    fleet: coordinator,
    chain: tracker,
    metrics: prom.metrics,
    registry: prom.registry,
    clock,
    logger,
    tags: purge.judge,
  });
  const headEndpoint = catalogue.all().find((e) => e.module?.reportsHead === true);
  if (headEndpoint !== undefined) {
    const head = new HeadEntry({
      req: canonicalize(headEndpoint, '', config.limits),
      memory,
      fetcher,
      chain: tracker,
      clock,
      keep: (e) => resolver.keep(e),
    });
    heads.adopt.on(head.adopt);
    heads.confirm.on(head.renew);
    heads.install.on(head.install);
  }
  return { fetcher, purge, resolver, refetches, headRefetches, passthrough };
}
