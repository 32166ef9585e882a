/**
 * Composition root: builds every stage from a validated Config and wires them
 * into one Fastify server. No stage knows about the others beyond its
 * constructor's interfaces.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import { buildCatalogue } from './catalogue/index.js';
import { ChainTracker } from './chain/tracker.js';
import { MemoryStore } from './cache/memory-store.js';
import type { Config } from './config/types.js';
import { createPrometheusMetrics } from './metrics/prometheus.js';
import { FetchStage } from './pipeline/fetch-stage.js';
import { Resolver } from './pipeline/resolver.js';
import { createUpstreamPool } from './upstream/pool.js';
import { registerApiRoutes } from './http/api-routes.js';
import { registerFallbacks } from './http/fallbacks.js';
import { OPS_PATHS, registerOpsRoutes } from './http/ops-routes.js';
import { connectFleet, type Fleet } from './fleet/connect.js';
import { registerRateLimit } from './http/rate-limit.js';
import { createAdminGate } from './http/admin-gate.js';
import { applyEdgeLimits, edgeServerOptions } from './http/server-limits.js';
import { drain, trackResponses } from './http/drain.js';
import { createPassthroughMetrics } from './passthrough/metrics.js';
import { apiOpenapi } from './openapi/api-paths.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { opsOpenapi } from './openapi/ops-paths.js';
import { OPENAPI_PATH, registerOpenApiRoute } from './openapi/route.js';
import { dashboardOpenapi } from './dashboard/openapi.js';
import { pagesOpenapi } from './pages/openapi.js';
import { batchOpenapi } from './http/batch-openapi.js';
import { streamOpenapi } from './stream/openapi.js';
import { DASHBOARD_PATHS, registerDashboard } from './dashboard/routes.js';
import { registerPassthrough } from './passthrough/register.js';
import { blockMaxInvariant } from './chain/block-max-invariant.js';
import { registerTrustMetrics } from './upstream/trust-metrics.js';
import { registerRetryAfter } from './upstream/retry-after.js';
import { PAGES } from './catalogue/pages.js';
import { compilePages } from './pages/plan.js';
import { Pages } from './pages/engine.js';
import { registerPageMetrics } from './pages/metrics.js';
import { PAGES_PREFIX, registerPageRoutes } from './http/page-routes.js';
import { BATCH_PATH, registerBatchRoute } from './http/batch-route.js';
import { chargeBatchWith } from './http/batch-charge.js';
import { HotKeys } from './pipeline/hot-keys.js';
import { createHeadStream, STREAM_PATH, type HeadStream } from './stream/index.js';
import { createRateLimitGate } from './ratelimit/index.js';
import { FastHits, fastServerFactory } from './http/fast-hit.js';

export interface ProxyOptions {
  logger?: Logger;
  /** Clock in ms (tests inject a fake one). */
  clock?: () => number;
}

export interface ProxyHandle {
  url: string;
  app: FastifyInstance;
  resolver: Resolver;
  tracker: ChainTracker;
  memory: MemoryStore;
  /** The aggregation layer; `pages.refresh('home')` recomposes a page in the background. */
  pages: Pages;
  stream: HeadStream;
  close(): Promise<void>;
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
/** Request ids: a per-process random prefix and a counter (unique across replicas, cheap on the hit path). */
const ID_PREFIX = randomBytes(4).toString('hex');
let idCounter = 0;

export async function buildProxy(config: Config, opts: ProxyOptions = {}) {
  const logger = opts.logger ?? pino({ level: config.logLevel });
  const clock = opts.clock ?? Date.now;
  const tracker = new ChainTracker({
    ...(config.upstream.headMarginBlocks !== undefined ? { marginBlocks: config.upstream.headMarginBlocks } : {}),
    confirmWindowMs: Math.max(1000, 3 * config.upstream.probeIntervalMs),
  });
  const catalogue = buildCatalogue(config.policies);

  // Late-bound so the metric sources can read stages built after the registry.
  let memoryRef: MemoryStore | undefined;
  let fleetRef: Fleet | null = null;
  let poolRef: ReturnType<typeof createUpstreamPool> | undefined;
  const prom = createPrometheusMetrics({
    tiers: () => [
      ...(memoryRef ? [{ tier: 'memory' as const, entries: memoryRef.entries, bytes: memoryRef.bytes, maxBytes: config.cacheMaxBytes }] : []),
      ...(fleetRef ? [fleetRef.tierStats()] : []),
    ],
    upstreams: () => poolRef?.status() ?? [],
    chain: tracker,
    redisHealthy: () => (fleetRef ? fleetRef.healthy() : null),
  });
  const metrics = prom.metrics;

  const memory = new MemoryStore({ maxBytes: config.cacheMaxBytes, clock, onEvict: () => metrics.cacheEviction('memory') });
  memoryRef = memory;
  const fleet = config.redisUrl === null ? null : connectFleet({ url: config.redisUrl, config: config.redis, tracker, metrics, logger, publicBaseUrl: config.publicBaseUrl });
  fleetRef = fleet;
  const trust = registerTrustMetrics(prom.registry, config.upstreamUrls.map((_, i) => `u${i}`));
  const pool = createUpstreamPool({ urls: config.upstreamUrls, config: config.upstream, tracker, metrics, logger, onShed: trust.shed, onRebase: trust.rebase });
  poolRef = pool;

  const hotKeys = new HotKeys();
  const fetcher = new FetchStage({ pool, tracker, publicBaseUrl: config.publicBaseUrl, clock });
  const resolver = new Resolver({
    memory,
    second: fleet?.store ?? null,
    fetcher,
    chain: tracker,
    fleet: fleet?.coordinator ?? null,
    metrics,
    clock,
    logger,
    invariants: new Map([['block/max', blockMaxInvariant(tracker, clock)]]),
    observe: config.refreshAhead.maxKeys > 0 ? hotKeys.seen : null,
  });

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
    // Composed pages are small beside their parts: an eighth of the memory tier, at most 64 MiB.
    maxBytes: Math.min(Math.floor(config.cacheMaxBytes / 8), 64 * 1024 * 1024),
  });

  const gate = createRateLimitGate(config, { redis: fleet?.client ?? null, metrics, registry: prom.registry, clock });
  const fast = config.accessLog === 'all' ? null : new FastHits({ resolver, chain: tracker, metrics, clock, gate, trustProxy: config.trustProxy.length > 0 });

  const adminGate = createAdminGate(config.adminAllow);
  const app = Fastify({
    ...edgeServerOptions(config.http),
    // Repeated fresh hits are answered before the router (src/http/fast-hit.ts).
    serverFactory: fastServerFactory(fast),
    loggerInstance: logger as FastifyBaseLogger,
    // One access-log line per request is written by the API routes (ACCESS_LOG), not by Fastify.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    // During the drain a request on a busy keep-alive connection is served (Fastify adds
    // Connection: close); its own 503 body would not be an envelope. See http/drain.ts.
    return503OnClosing: false,
    requestIdHeader: 'x-request-id',
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : `${ID_PREFIX}-${(++idCounter).toString(36)}`;
    },
    // No per-request child logger (it costs more than a cache hit): log lines carry reqId themselves.
    childLoggerFactory: (parent) => parent,
    // The API routes parse the raw query themselves (duplicates, encodings, control characters).
    routerOptions: { querystringParser: () => ({}) },
  });
  applyEdgeLimits(app, config.http);

  registerRetryAfter(app);
  if (gate !== null) registerRateLimit(app, gate);
  registerApiRoutes(app, { catalogue, resolver, chain: tracker, metrics, limits: config.limits, accessLog: config.accessLog, clock, logger, fast });
  registerPageRoutes(app, { pages, chain: tracker, metrics: pageMetrics, accessLog: config.accessLog, requestTimeoutMs: config.limits.requestTimeoutMs, clock, logger });
  registerBatchRoute(app, {
    catalogue,
    resolver,
    chain: tracker,
    metrics,
    limits: config.limits,
    // Batches count per item: the limiter's hook counted the POST, chargeBatch the other items.
    chargeBatch: gate === null ? null : chargeBatchWith(gate),
    accessLog: config.accessLog,
    clock,
  });
  const stream = createHeadStream({
    app,
    config: config.stream,
    registry: prom.registry,
    tracker,
    refreshAheadKeys: config.refreshAhead.maxKeys,
    hotKeys,
    blockList: catalogue.get('block/list'),
    limits: config.limits,
    resolver,
    clock,
    logger,
  });
  // The home page moves with the head: recompose it (when clients read it) before its pollers ask.
  if (config.refreshAhead.maxKeys > 0) stream.refreshAhead.addTarget({ name: 'pages/home', refresh: () => pages.refresh('home', {}, true) });
  registerOpsRoutes(app, {
    ready: () => pool.ready(),
    upstreams: () => pool.status(),
    chain: tracker,
    cache: () => ({
      memory: { entries: memory.entries, bytes: memory.bytes, maxBytes: config.cacheMaxBytes, flightsInProgress: resolver.inFlight },
      redis: fleet ? { healthy: fleet.healthy() } : null,
    }),
    metrics: prom,
    startedAt: Date.now(),
    adminGate,
    metricsCacheMs: config.metricsCacheMs,
  });
  const passthroughPrefixes = config.passthrough.routes.map((r) => r.prefix);
  await registerPassthrough(app, {
    config: config.passthrough,
    connectTimeoutMs: config.upstream.connectTimeoutMs,
    connections: config.upstream.connections,
    accessLog: config.accessLog,
    metrics: passthroughPrefixes.length > 0 ? createPassthroughMetrics(prom.registry, passthroughPrefixes) : null,
  });
  registerDashboard(app, { adminGate, registry: prom.registry });
  registerOpenApiRoute(
    app,
    buildOpenApiDocument({
      publicBaseUrl: config.publicBaseUrl,
      contributions: [apiOpenapi(catalogue, config.limits), opsOpenapi(), dashboardOpenapi(), pagesOpenapi(compiledPages, config.limits), batchOpenapi(config.limits), streamOpenapi()],
    }),
  );
  registerFallbacks(
    app,
    new Set([...catalogue.all().map((e) => `/${e.name}`), ...OPS_PATHS, ...DASHBOARD_PATHS, OPENAPI_PATH, STREAM_PATH, BATCH_PATH, ...pages.names().map((n) => `${PAGES_PREFIX}${n}`)]),
    // Paths that do not serve GET and HEAD: their 405 and preflight name their own methods.
    new Map([
      [BATCH_PATH, ['POST']],
      [STREAM_PATH, ['GET']],
    ]),
  );

  pool.start();

  const open = trackResponses(app.server);
  let poolClosed: Promise<void> | undefined;
  const closePool = (): Promise<void> => (poolClosed ??= pool.close());
  const close = async () => {
    fast?.close();
    const r = await drain({ server: app.server, open, close: () => app.close(), abortUpstream: closePool, deadlineMs: config.shutdownTimeoutMs });
    if (r.timedOut) logger.warn({ shutdownTimeoutMs: config.shutdownTimeoutMs, cut: r.cut }, 'drain deadline reached: requests still running were answered 503');
    await closePool();
    await gate?.limiter.close();
    await fleet?.close();
  };
  return { app, resolver, tracker, memory, pool, fleet, pages, stream, limiter: gate?.limiter ?? null, fast, adminGate, close };
}

export async function startProxy(config: Config, opts: ProxyOptions = {}): Promise<ProxyHandle> {
  const built = await buildProxy(config, opts);
  const address = await built.app.listen({ port: config.port, host: config.host });
  const url = address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '[::1]');
  return { url, app: built.app, resolver: built.resolver, tracker: built.tracker, memory: built.memory, pages: built.pages, stream: built.stream, close: built.close };
}
