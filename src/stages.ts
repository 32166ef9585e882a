/**
 * The stages of the proxy, built once from a validated Config: metrics, chain
 * tracker, memory and Redis tiers, upstream pool, fetch stage, resolver,
 * aggregation pages, rate limiter, pre-router hit path and operator gate.
 * Nothing here knows about HTTP routes (src/surface.ts registers them).
 */
import type { Logger } from 'pino';
import { buildCatalogue, type Catalogue } from './catalogue/index.js';
import { PAGES } from './page-table/defaults.js';
import { ChainTracker } from './chain/tracker.js';
import { HeadGuard } from './pipeline/head-guard.js';
import { MemoryStore } from './cache/memory-store.js';
import type { Config } from './config/types.js';
import { connectFleet, type Fleet } from './fleet/connect.js';
import { registerFleetMetrics, startFleetDuty, type FleetDuty } from './fleet/duty.js';
import { redisNamedLease } from './fleet/named-lease.js';
import { registerMemberMetrics } from './fleet/member-metrics.js';
import { connectWorkerFleet } from './cluster/worker-fleet.js';
import { OperatorAccess } from './http/admin-gate.js';
import { EnvelopeWriter } from './http/envelope-writer.js';
import {
  readinessRule,
  readinessVerdict,
  Serving,
  whileServing,
  type ReadinessRule,
  type ReadinessVerdict,
} from './http/readiness.js';
import { FastHits } from './http/fast-hit.js';
import { Epilogue } from './http/epilogue.js';
import { ClientAddress } from './http/client-address.js';
import { createPrometheusMetrics, type PrometheusMetrics } from './metrics/prometheus.js';
import type { Metrics } from './metrics/types.js';
import { Pages } from './pages/engine.js';
import { registerPageMetrics, type PageMetrics } from './pages/metrics.js';
import { compilePages } from './page-table/plan.js';
import { PageTableSwap } from './pages/table-swap.js';
import { TouchedSets } from './chain/touched.js';
import { buildInvalidation, tagBudget, type Invalidation } from './invalidation/build.js';
import { storeFor } from './invalidation/own-reads.js';
import { EarnedBounds } from './invalidation/earned.js';
import { UnchangedCount } from './invalidation/unchanged-count.js';
import { FetchStage } from './pipeline/fetch-stage.js';
import { HeadEntry } from './pipeline/head-entry.js';
import { installShared } from './fleet/shared-entries.js';
import { canonicalize } from './catalogue/canonicalize.js';
import type { UpstreamResponse } from './upstream/types.js';
import type { CacheEntry } from './cache/types.js';
import { HotBoard } from './refresh/board.js';
import { buildRefresh } from './refresh/build.js';
import type { RefreshEngine } from './refresh/engine.js';
import { Resolver } from './pipeline/resolver.js';
import { Admission } from './cache/admission.js';
import { registerAdmissionMetrics } from './metrics/admission.js';
import { createRateLimitGate, type RateLimitGate } from './ratelimit/index.js';
import { createUpstreamPool } from './upstream/pool.js';
import { registerTrustMetrics } from './upstream/trust-metrics.js';
import { HeadWatch } from './upstream/head-watch.js';
import { registerHeadMetrics } from './upstream/head-metrics.js';
import { registerRefetchMetrics, type RefetchMetrics } from './metrics/refetch.js';
import { SitOuts } from './upstream/sit-out.js';
import { registerConsensusMetrics } from './consensus/metrics.js';
import { buildQuorum } from './consensus/build.js';
import type { Quorum } from './consensus/quorum.js';
import { buildPurge, type Purge } from './purge/build.js';
import { LiveSettings } from './startup/live-settings.js';
import { buildPassCache, type PassCache } from './passthrough/build.js';
import { reconfigureRoutes } from './passthrough/reconfigure.js';

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
  pool: ReturnType<typeof createUpstreamPool>;
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
  /** Head mode's unchanged refetches by what ended the entry (precise mode counts its own). */
  headRefetches: UnchangedCount;
  /** New heads: probe cadence, probes per block, detection delay. */
  headWatch: HeadWatch;
  refetches: RefetchMetrics;
  /** Operator purges (src/purge/build.ts). */
  purge: Purge;
  /** The running configuration and the swap points a reload (SIGHUP) goes through. */
  live: LiveSettings;
  /** The passthrough cache (src/passthrough/build.ts); null without PASSTHROUGH. */
  passthrough: PassCache | null;
}

/** `worker`: this process is cluster worker number `worker` (WORKERS > 1); null: the only one. */
export function buildStages(
  config: Config,
  logger: Logger,
  clock: () => number,
  upstreamIsSimulator: boolean,
  worker: number | null = null,
): Stages {
  const writer = new EnvelopeWriter({ upstreamIsSimulator });
  const tracker = new ChainTracker({
    ...(config.upstream.headMarginBlocks !== undefined ? { marginBlocks: config.upstream.headMarginBlocks } : {}),
    confirmWindowMs: Math.max(1000, 3 * config.upstream.probeIntervalMs),
    // Called from probes, long after sitOuts below exists.
    onRefuted: (source, height) => sitOuts.bench(source, 'head', `head ${height} refuted by the other upstreams`),
  });
  const catalogue = buildCatalogue(config.policies);

  // Late-bound so the metric sources can read stages built after the registry.
  let memoryRef: MemoryStore | undefined;
  let fleetRef: Fleet | null = null;
  let poolRef: ReturnType<typeof createUpstreamPool> | undefined;
  const prom = createPrometheusMetrics({
    tiers: () => [
      ...(memoryRef
        ? [
            {
              tier: 'memory' as const,
              entries: memoryRef.entries,
              bytes: memoryRef.bytes,
              maxBytes: config.cacheMaxBytes,
            },
          ]
        : []),
      ...(fleetRef ? [fleetRef.tierStats()] : []),
    ],
    upstreams: () => poolRef?.status() ?? [],
    chain: tracker,
    redisHealthy: () => (fleetRef ? fleetRef.healthy() : null),
  });
  const metrics = prom.metrics;

  const touched = new TouchedSets();
  // Fed by lookups (the resolver's) and by the tag clock (what a lookup found invalidated), unless refresh-ahead is
  // off.
  const hot = new HotBoard();
  const scored = config.refreshAhead.maxKeys > 0;
  const invalidation = buildInvalidation(
    config,
    touched,
    prom.registry,
    clock,
    tracker,
    scored ? hot.invalidated : null,
  );
  // The tag map is charged to CACHE_MAX_BYTES.
  const memoryBytes =
    invalidation === null ? config.cacheMaxBytes : config.cacheMaxBytes - tagBudget(config.cacheMaxBytes);
  const memory = new MemoryStore({ maxBytes: memoryBytes, clock, onEvict: () => metrics.cacheEviction('memory') });
  memoryRef = memory;
  // The member list shows the duty's turn; the duty needs the fleet first.
  let dutyRef: FleetDuty | null = null;
  const fleet =
    config.redisUrl === null
      ? null
      : connectFleet({
          url: config.redisUrl,
          config: config.redis,
          tracker,
          metrics,
          logger,
          publicBaseUrl: config.publicBaseUrl,
          role: () => dutyRef?.turn() ?? 'replica',
          clock,
        });
  fleetRef = fleet;
  // A cluster worker: /metrics is the machine's (the primary merges every worker's); without Redis the primary is also
  // the bus and lease.
  const render = prom.render;
  const workerFleet =
    worker === null
      ? null
      : connectWorkerFleet({
          tracker: fleet === null ? tracker : null,
          peek: (key) => memory.peek(key)?.entry,
          // Called once requests flow, after the resolver below exists.
          fresh: (key: string): CacheEntry | undefined => resolver.freshHeld(key),
          render,
          leaseMs: config.redis.leaseMs,
        });
  const fleetMetrics = registerFleetMetrics(prom.registry);
  // The leader lease: in Redis for a fleet; in the cluster primary for the workers of one machine without it.
  const dutyOver =
    fleet !== null
      ? { lease: redisNamedLease(fleet.client, config.redis), name: `leader:${fleet.namespace}`, bus: fleet.bus }
      : (workerFleet?.duty ?? null);
  const duty =
    dutyOver === null
      ? null
      : startFleetDuty(dutyOver, config.upstream.probeIntervalMs, fleetMetrics.selfProbe, logger);
  dutyRef = duty;
  if (duty !== null) fleetMetrics.watch(duty);
  registerMemberMetrics(prom.registry, () => fleet?.members.view() ?? null);
  const link = fleet ?? workerFleet?.link ?? null;
  const upstreamNames = config.upstreamUrls.map((_, i) => `u${i}`);
  const trust = registerTrustMetrics(prom.registry, upstreamNames);
  const consensusMetrics = registerConsensusMetrics(prom.registry, upstreamNames);
  const headMetrics = registerHeadMetrics(prom.registry);
  const headWatch = new HeadWatch({
    tracker,
    settings: { sparseMs: config.upstream.probeIntervalMs, denseMs: config.upstream.probeDenseMs ?? 100 },
    onDelay: headMetrics.onDelay,
  });
  headMetrics.watch(headWatch);
  const refetches = registerRefetchMetrics(prom.registry);
  const sitOuts = new SitOuts({
    durationMs: config.upstream.sitOutMs ?? 60_000,
    clock,
    logger,
    onSitOut: consensusMetrics.sitOut,
  });
  // A probe's new head becomes the head entry (bound once the resolver exists; probes start later).
  let adoptHead: ((res: UpstreamResponse, height: number) => void) | null = null;
  let confirmHead: ((height: number) => void) | null = null;
  let installHead: ((res: UpstreamResponse, height: number) => void) | null = null;
  const adopt = (res: UpstreamResponse, height: number): void => adoptHead?.(res, height);
  const confirm = (height: number): void => confirmHead?.(height);
  const install = (res: UpstreamResponse, height: number): void => installHead?.(res, height);
  const pool = createUpstreamPool({
    urls: config.upstreamUrls,
    config: config.upstream,
    tracker,
    metrics,
    logger,
    onShed: trust.shed,
    onRebase: trust.rebase,
    sitOuts,
    watch: headWatch,
    adopt,
    confirm,
    install,
    duty,
  });
  poolRef = pool;
  const quorum = buildQuorum(config.upstream, { pool, sitOuts, metrics: consensusMetrics, logger, clock });

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
    metrics,
    clock,
    logger,
  });
  const resolver = new Resolver({
    memory,
    second: purge.second,
    fetcher,
    chain: tracker,
    fleet: fleet?.coordinator ?? workerFleet?.coordinator ?? null,
    metrics,
    clock,
    logger,
    headGuard,
    observe: scored ? hot.seen : null,
    tags: purge.judge,
    refetched: refetches.refetched,
    admission: new Admission({ onVerdict: registerAdmissionMetrics(prom.registry) }),
  });
  const passthrough = buildPassCache({
    config,
    memory,
    second: purge.second,
    fleet: fleet?.coordinator ?? workerFleet?.coordinator ?? null,
    chain: tracker,
    metrics,
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
    adoptHead = head.adopt;
    confirmHead = head.renew;
    installHead = head.install;
  }
  invalidation?.start({
    // The block reader reads around the client cache (its own fetches), and stores what it verified.
    reads: {
      fetch: (req, signal, purpose) => fetcher.fetch(req, signal, purpose),
      adopt: (req, res, head) => fetcher.adopt(req, res, head),
      pool,
      chain: tracker,
      store: storeFor(memory, fleet?.store ?? null, logger),
    },
    catalogue,
    limits: config.limits,
    heads: tracker,
    fleet: link,
    duty,
    logger,
  });

  // After the tag clock and the block reader: a refreshed entry is fetched once its block is known.
  const refresh = buildRefresh({
    board: hot,
    maxKeys: config.refreshAhead.maxKeys,
    registry: prom.registry,
    heads: tracker,
    touched,
    resolver,
    acting: duty?.acting ?? null,
    touchedCounted: invalidation?.metrics.refreshed ?? null,
    // The leader's refreshed entries reach the followers with the round (src/fleet/shared-entries.ts).
    onRefreshed: duty === null ? null : (entries) => duty.shareEntries(entries),
    logger,
  });
  duty?.onEntries((encoded) => void installShared(encoded, resolver.offer, clock));

  const compiledPages = compilePages(PAGES, config.pages, catalogue);
  const pageMetrics = registerPageMetrics(prom.registry, [...compiledPages.keys()]);
  const pages = new Pages({
    pages: compiledPages,
    resolver,
    chain: tracker,
    limits: config.limits,
    clock,
    logger,
    metrics: pageMetrics,
    // Composed pages are entries of the memory tier, judged like the resolver's.
    memory,
    tags: purge.judge,
  });

  const gate = createRateLimitGate(config, { redis: fleet?.client ?? null, metrics, registry: prom.registry, clock });
  const address = new ClientAddress(config.trustProxy);
  const epilogue = new Epilogue({
    address,
    accessLog: config.accessLog,
    logger,
    chain: tracker,
    writer,
    gate,
    metrics,
    pages: pageMetrics,
  });
  const fast = config.accessLog === 'all' ? null : new FastHits({ resolver, clock, epilogue });
  const live = new LiveSettings(config, prom.registry);
  // The swap points: what a reload changes in place (src/config/reload-classes.ts says which settings).
  live.onChange((next) => (logger.level = next.logLevel));
  // The pool reads these of its settings object at each request (src/upstream/pool.ts).
  const poolSettings = config.upstream;
  live.onChange(({ upstream: u }) => {
    poolSettings.maxAttempts = u.maxAttempts;
    poolSettings.hedgeAfterMs = u.hedgeAfterMs;
    poolSettings.hedgeQuantile = u.hedgeQuantile;
    poolSettings.maxLagBlocks = u.maxLagBlocks;
  });
  live.onChange((next) => {
    const replaced = pool.replaceUrls(next.upstreamUrls);
    if (replaced.length > 0) logger.info({ upstreams: replaced }, 'reload: upstreams replaced under the same names');
  });
  const operators = new OperatorAccess({
    adminAllow: config.adminAllow,
    purgeAllow: config.purgeAllow,
    adminHosts: config.adminHosts,
  });
  live.onChange((n) => operators.set({ adminAllow: n.adminAllow, purgeAllow: n.purgeAllow, adminHosts: n.adminHosts }));
  if (gate !== null)
    live.onChange((next) => {
      gate.limiter.reconfigure({
        config: next.rateLimit,
        allow: next.rateLimitAllow,
        apiKeys: next.apiKeys,
        missBudget: next.missBudget,
      });
      gate.prices.replace(next.credits, next.creditCosts);
    });
  // Passthrough: each route's cache policy and ignored parameters; remembered fast hits are routed again.
  if (passthrough !== null)
    live.onChange((next) => {
      if (reconfigureRoutes(passthrough.routes, next.passthrough)) fast?.forget();
    });
  const ruleOf = (): ReadinessRule =>
    readinessRule(config.upstream.probeIntervalMs, Math.max(0, ...catalogue.all().map((e) => e.policy.sieMs)));
  let rule = ruleOf();
  // Policies: the endpoint definitions' policy objects rewritten (every reader uses the new one from its next use),
  // then what derives from them: the readiness rule (the longest stale-if-error) and the purge marks' horizon.
  live.onChange((next) => {
    catalogue.setPolicies(next.policies);
    rule = ruleOf();
    purge.policiesChanged();
  });
  // Pages: the table the page route and the engine look pages up in (src/pages/table-swap.ts).
  const pageSwap = new PageTableSwap(config.pages, { pages, metrics: pageMetrics, catalogue });
  live.onChange((next) => pageSwap.apply(next.pages));
  const serving = new Serving();
  const readiness = () => whileServing(serving, readinessVerdict(pool.goodAnswers(), memory.entries, rule));

  const served = workerFleet === null ? prom : { ...prom, render: workerFleet.scrape };
  return {
    logger,
    clock,
    catalogue,
    tracker,
    prom: served,
    metrics,
    memory,
    fleet,
    duty,
    pool,
    refresh,
    resolver,
    pageMetrics,
    pages,
    gate,
    fast,
    operators,
    writer,
    epilogue,
    address,
    upstreamIsSimulator,
    readiness,
    serving,
    quorum,
    touched,
    invalidation,
    headRefetches,
    headWatch,
    refetches,
    purge,
    live,
    passthrough,
  };
}
