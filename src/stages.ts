/**
 * The composition root: every stage of the proxy built once from a validated
 * Config, in order, by one builder per subsystem (src/root/): chain, cache,
 * fleet, upstreams, pipeline, blocks, edges, reload. Each builder is given the
 * handles of those before it; nothing is filled in later. What a stage tells
 * a later one goes through an event it subscribes to (the probes' heads) or a
 * second step once the reader exists (the scrape-time gauges, a worker's lends).
 * Nothing here knows about HTTP routes (src/surface.ts registers them).
 */
import type { Logger } from 'pino';
import type { Catalogue } from './catalogue/index.js';
import type { ChainTracker } from './chain/tracker.js';
import type { MemoryStore } from './cache/memory-store.js';
import type { Config } from './config/types.js';
import type { Fleet } from './fleet/connect.js';
import type { FleetDuty } from './fleet/duty.js';
import type { OperatorAccess } from './http/admin-gate.js';
import type { EnvelopeWriter } from './http/envelope-writer.js';
import type { ReadinessVerdict, Serving } from './http/readiness.js';
import type { FastHits } from './http/fast-hit.js';
import type { Epilogue } from './http/epilogue.js';
import type { ClientAddress } from './http/client-address.js';
import { createPrometheusMetrics, type PrometheusMetrics } from './metrics/prometheus.js';
import type { Metrics } from './metrics/types.js';
import type { Pages } from './pages/engine.js';
import type { PageMetrics } from './pages/metrics.js';
import type { TouchedSets } from './chain/touched.js';
import type { Invalidation } from './invalidation/build.js';
import type { RefreshEngine } from './refresh/engine.js';
import type { Resolver } from './pipeline/resolver.js';
import type { RateLimitGate } from './ratelimit/index.js';
import type { ManagedUpstreamPool } from './upstream/pool.js';
import type { HeadWatch } from './upstream/head-watch.js';
import type { RefetchMetrics } from './metrics/refetch.js';
import type { UnchangedCount } from './invalidation/unchanged-count.js';
import type { Quorum } from './consensus/quorum.js';
import type { Purge } from './purge/build.js';
import type { LiveSettings } from './startup/live-settings.js';
import type { PassCache } from './passthrough/build.js';
import type { Basics } from './root/basics.js';
import { buildChain } from './root/chain.js';
import { buildCache } from './root/cache.js';
import { buildFleet } from './root/fleet.js';
import { buildUpstreams } from './root/upstreams.js';
import { buildPipeline } from './root/pipeline.js';
import { buildBlockWork } from './root/blocks.js';
import { buildEdges } from './root/edges.js';
import { buildReload } from './root/reload.js';

export interface Stages {
  logger: Logger;
  clock: () => number;
  catalogue: Catalogue;
  tracker: ChainTracker;
  prom: PrometheusMetrics;
  metrics: Metrics;
  memory: MemoryStore;
  fleet: Fleet | null;
  /** Who does the fleet's background work (src/fleet/duty.ts); null: no fleet. */
  duty: FleetDuty | null;
  pool: ManagedUpstreamPool;
  /** The one refresh engine (src/refresh/): hot entries fetched again on a new head and on a touched set. */
  refresh: RefreshEngine;
  resolver: Resolver;
  pageMetrics: PageMetrics;
  pages: Pages;
  /** null when rate limiting is off. */
  gate: RateLimitGate | null;
  /** null when every request must go through the router (ACCESS_LOG=all). */
  fast: FastHits | null;
  /** Where every answer leaves: written, counted, logged (src/http/epilogue.ts). */
  epilogue: Epilogue;
  /** A request's client address (TRUST_PROXY), for the rate limit and Fastify's request.ip. */
  address: ClientAddress;
  /** The operator gates' lists (ADMIN_ALLOW, PURGE_ALLOW, ADMIN_HOSTS), swappable at runtime. */
  operators: OperatorAccess;
  /** Every envelope the proxy writes, and the headers of every API answer. */
  writer: EnvelopeWriter;
  /** The upstream is the built-in chain simulator (started by src/main.ts). */
  upstreamIsSimulator: boolean;
  /** The one readiness verdict (/readyz, /status, the status page). */
  readiness: () => ReadinessVerdict;
  /** Set when the process begins to shut down: readiness then says not ready. */
  serving: Serving;
  /** null when UPSTREAM_QUORUM is 1 (no vote). */
  quorum: Quorum | null;
  /** What each block changed, published on every replica (src/chain/touched.ts). */
  touched: TouchedSets;
  /** Precise invalidation (src/invalidation/build.ts); null: INVALIDATION_MODE=head. */
  invalidation: Invalidation | null;
  /** New heads: probe cadence, probes per block, detection delay. */
  headWatch: HeadWatch;
  refetches: RefetchMetrics;
  /** Head mode's unchanged refetches by what ended the entry (precise mode counts its own). */
  headRefetches: UnchangedCount;
  /** Operator purges (src/purge/build.ts). */
  purge: Purge;
  /** The running configuration and the swap points a reload (SIGHUP) goes through. */
  live: LiveSettings;
  /** The passthrough cache (src/passthrough/build.ts), built without PASSTHROUGH too: a reload may add prefixes. */
  passthrough: PassCache;
}

/** `worker`: this process is cluster worker number `worker` (WORKERS > 1); null: the only one. */
export function buildStages(
  config: Config,
  logger: Logger,
  clock: () => number,
  upstreamIsSimulator: boolean,
  worker: number | null = null,
): Stages {
  // The push side first (every stage counts into it); its scrape-time gauges once their stages exist (upstreams).
  const b: Basics = { config, logger, clock, prom: createPrometheusMetrics() };
  const chain = buildChain(b);
  const cache = buildCache(b, chain);
  const fleet = buildFleet(b, chain, cache, worker);
  const upstreams = buildUpstreams(b, chain, cache, fleet);
  const pipeline = buildPipeline(b, chain, cache, fleet, upstreams);
  const { refresh } = buildBlockWork(b, chain, cache, fleet, upstreams, pipeline);
  const edges = buildEdges(b, chain, cache, fleet, upstreams, pipeline, upstreamIsSimulator);
  const live = buildReload(b, chain, upstreams, pipeline, edges);

  const { workerFleet } = fleet;
  return {
    logger,
    clock,
    catalogue: chain.catalogue,
    tracker: chain.tracker,
    prom: workerFleet === null ? b.prom : { ...b.prom, render: workerFleet.scrape },
    metrics: b.prom.metrics,
    memory: cache.memory,
    fleet: fleet.fleet,
    duty: fleet.duty,
    pool: upstreams.pool,
    refresh,
    resolver: pipeline.resolver,
    pageMetrics: edges.pageMetrics,
    pages: edges.pages,
    gate: edges.gate,
    fast: edges.fast,
    operators: edges.operators,
    writer: edges.writer,
    epilogue: edges.epilogue,
    address: edges.address,
    upstreamIsSimulator,
    readiness: edges.readiness,
    serving: edges.serving,
    quorum: upstreams.quorum,
    touched: chain.touched,
    invalidation: cache.invalidation,
    headWatch: upstreams.headWatch,
    refetches: pipeline.refetches,
    headRefetches: pipeline.headRefetches,
    purge: pipeline.purge,
    live,
    passthrough: pipeline.passthrough,
  };
}
