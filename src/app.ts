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
  close(): Promise<void>;
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
/** Request ids: a per-process random prefix and a counter (unique across replicas, cheap on the hit path). */
const ID_PREFIX = randomBytes(4).toString('hex');
let idCounter = 0;

export async function buildProxy(config: Config, opts: ProxyOptions = {}) {
  const logger = opts.logger ?? pino({ level: config.logLevel });
  const clock = opts.clock ?? Date.now;
  const tracker = new ChainTracker();
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
  const pool = createUpstreamPool({ urls: config.upstreamUrls, config: config.upstream, tracker, metrics, logger });
  poolRef = pool;

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
  });

  const adminGate = createAdminGate(config.adminAllow);
  const app = Fastify({
    ...edgeServerOptions(config.http),
    loggerInstance: logger as FastifyBaseLogger,
    // One access-log line per request is written by the API routes (ACCESS_LOG), not by Fastify.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    return503OnClosing: true,
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

  if (config.rateLimit.enabled) {
    await registerRateLimit(app, { config: config.rateLimit, redis: fleet?.client ?? null, metrics });
  }
  registerApiRoutes(app, { catalogue, resolver, chain: tracker, metrics, limits: config.limits, accessLog: config.accessLog, clock, logger });
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
  registerFallbacks(app, new Set([...catalogue.all().map((e) => `/${e.name}`), ...OPS_PATHS]));

  pool.start();

  const close = async () => {
    const closing = app.close();
    // close() drops the connections idle at that moment; one that finishes its
    // in-flight request afterwards would stay open on keep-alive (and hold the
    // shutdown) until its timeout, so sweep connections as they turn idle.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
    try {
      await closing;
    } finally {
      clearInterval(sweep);
    }
    await pool.close();
    await fleet?.close();
  };
  return { app, resolver, tracker, memory, pool, fleet, adminGate, close };
}

export async function startProxy(config: Config, opts: ProxyOptions = {}): Promise<ProxyHandle> {
  const built = await buildProxy(config, opts);
  const address = await built.app.listen({ port: config.port, host: config.host });
  const url = address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '[::1]');
  return { url, app: built.app, resolver: built.resolver, tracker: built.tracker, memory: built.memory, close: built.close };
}
