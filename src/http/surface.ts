/**
 * The HTTP surface, registered on the server in one place: the rate limiter's
 * hook, the 22 endpoints, pages and batch, the head stream, operator routes,
 * passthrough, the status page, the OpenAPI document (each feature contributes
 * its paths) and the fallbacks (404/405/preflight) that know every path.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/types.js';
import { dashboardOpenapi } from '../dashboard/openapi.js';
import { DASHBOARD_PATHS, registerDashboard } from '../dashboard/routes.js';
import { apiOpenapi } from '../openapi/api-paths.js';
import { buildOpenApiDocument } from '../openapi/document.js';
import { opsOpenapi } from '../openapi/ops-paths.js';
import { OPENAPI_PATH, registerOpenApiRoute } from '../openapi/route.js';
import { pagesOpenapi } from '../pages/openapi.js';
import { createPassthroughMetrics } from '../passthrough/metrics.js';
import { registerPassthrough } from '../passthrough/register.js';
import type { Stages } from '../stages.js';
import { createHeadStream, STREAM_PATH, type HeadStream } from '../stream/index.js';
import { streamOpenapi } from '../stream/openapi.js';
import { registerApiRoutes } from './api-routes.js';
import { batchOpenapi } from './batch-openapi.js';
import { chargeBatchWith } from './batch-charge.js';
import { BATCH_PATH, registerBatchRoute } from './batch-route.js';
import { registerFallbacks } from './fallbacks.js';
import { OPS_PATHS, registerOpsRoutes } from './ops-routes.js';
import { PAGES_PREFIX, registerPageRoutes } from './page-routes.js';
import { registerRateLimit } from './rate-limit.js';

/** Registers every route; returns the head stream (its refresh-ahead takes extra targets). */
export async function registerSurface(app: FastifyInstance, config: Config, s: Stages): Promise<HeadStream> {
  const { catalogue, resolver, tracker, metrics, prom, pages, gate, clock, logger } = s;
  const common = { chain: tracker, accessLog: config.accessLog, clock };

  if (gate !== null) registerRateLimit(app, gate);
  registerApiRoutes(app, { ...common, catalogue, resolver, metrics, limits: config.limits, logger, fast: s.fast });
  registerPageRoutes(app, { ...common, pages, metrics: s.pageMetrics, requestTimeoutMs: config.limits.requestTimeoutMs, logger });
  // Batches count per item: the limiter's hook counted the POST, chargeBatch the other items.
  registerBatchRoute(app, { ...common, catalogue, resolver, metrics, limits: config.limits, chargeBatch: gate === null ? null : chargeBatchWith(gate) });
  const stream = createHeadStream({
    app,
    config: config.stream,
    registry: prom.registry,
    tracker,
    refreshAheadKeys: config.refreshAhead.maxKeys,
    hotKeys: s.hotKeys,
    blockList: catalogue.get('block/list'),
    limits: config.limits,
    resolver,
    clock,
    logger,
  });
  // The home page moves with the head: recompose it (when clients read it) before its pollers ask.
  if (config.refreshAhead.maxKeys > 0) stream.refreshAhead.addTarget({ name: 'pages/home', refresh: () => pages.refresh('home', {}, true) });

  registerOpsRoutes(app, {
    ready: () => s.pool.ready(),
    upstreams: () => s.pool.status(),
    chain: tracker,
    cache: () => ({
      memory: { entries: s.memory.entries, bytes: s.memory.bytes, maxBytes: config.cacheMaxBytes, flightsInProgress: resolver.inFlight },
      redis: s.fleet ? { healthy: s.fleet.healthy() } : null,
    }),
    metrics: prom,
    startedAt: Date.now(),
    adminGate: s.adminGate,
    metricsCacheMs: config.metricsCacheMs,
    consensus: () => s.quorum?.snapshot() ?? null,
  });
  const prefixes = config.passthrough.routes.map((r) => r.prefix);
  await registerPassthrough(app, {
    config: config.passthrough,
    connectTimeoutMs: config.upstream.connectTimeoutMs,
    connections: config.upstream.connections,
    accessLog: config.accessLog,
    metrics: prefixes.length > 0 ? createPassthroughMetrics(prom.registry, prefixes) : null,
  });
  registerDashboard(app, { adminGate: s.adminGate, registry: prom.registry });
  registerOpenApiRoute(
    app,
    buildOpenApiDocument({
      publicBaseUrl: config.publicBaseUrl,
      contributions: [
        apiOpenapi(catalogue, config.limits),
        opsOpenapi(),
        dashboardOpenapi(),
        pagesOpenapi(s.compiledPages, config.limits),
        batchOpenapi(config.limits),
        streamOpenapi(),
      ],
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
  return stream;
}
