/**
 * The HTTP surface, registered on the server in one place: the rate limiter's
 * hook, the 22 endpoints, pages and batch, the head stream, operator routes,
 * passthrough, the status page, the OpenAPI document (each feature contributes
 * its paths; operators get it whole) and the fallbacks (404/405/preflight),
 * all reading one path registry (catalogue/paths.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from './config/types.js';
import { dashboardOpenapi } from './dashboard/openapi.js';
import { blockList as blockListEndpoint } from './endpoints/block-list.js';
import { txList as txListEndpoint } from './endpoints/tx-list.js';
import { registerDashboard } from './dashboard/routes.js';
import { apiOpenapi } from './openapi/api-paths.js';
import { buildOpenApiDocument, withoutPaths } from './openapi/document.js';
import { opsOpenapi } from './openapi/ops-paths.js';
import { registerOpenApiRoute, type OpenApiDocuments } from './http/openapi-route.js';
import { pagesOpenapi } from './pages/openapi.js';
import { registerPassthrough } from './passthrough/register.js';
import { passKeyOf } from './passthrough/request.js';
import { passthroughStatus } from './passthrough/status.js';
import type { Stages } from './stages.js';
import { createHeadStream, type HeadStream } from './stream/index.js';
import { SharedHeadHistory } from './stream/shared-history.js';
import { streamOpenapi } from './stream/openapi.js';
import { activityOpenapi } from './stream/activity/openapi.js';
import { registerApiRoutes } from './http/api-routes.js';
import { batchOpenapi } from './http/batch-openapi.js';
import { chargeBatchWith } from './http/batch-charge.js';
import { registerBatchRoute } from './http/batch-route.js';
import { registerPurgeRoute } from './purge/route.js';
import { purgeOpenapi } from './purge/openapi.js';
import { registerErrorHandler, registerFallbacks } from './http/fallbacks.js';
import { registerFramingGuard } from './http/framing-guard.js';
import { registerClientLog } from './http/client-log.js';
import { limitConnections, registerConnectionMetrics } from './http/connection-limits.js';
import { registerOpsRoutes } from './http/ops-routes.js';
import { registerPageRoutes } from './http/page-routes.js';
import { PathRegistry, rateLimitExempt } from './catalogue/paths.js';
import { payerOf } from './http/miss-payer.js';
import { registerRateLimit } from './http/rate-limit.js';
import { REQUEST_ID_HEADER } from './http/request-id.js';

/** Registers every route; returns the head stream. */
export async function registerSurface(app: FastifyInstance, config: Config, s: Stages): Promise<HeadStream> {
  const { catalogue, resolver, tracker, prom, pages, gate, clock, logger, epilogue } = s;
  const common = { epilogue, clock };

  const registry = new PathRegistry(
    catalogue.all().map((e) => e.name),
    pages.names(),
  );

  registerErrorHandler(app);
  limitConnections(app.server, config.http, config.trustProxy, registerConnectionMetrics(prom.registry));
  const passthrough = s.passthrough;
  registerClientLog(app, (url) => passthrough.table.match(url) !== null);
  registerFramingGuard(app);
  // Answers that set no X-Cache of their own (operator routes, preflights, passthrough) were made now: BYPASS.
  // Every answer carries its request id (the epilogue's and the envelope writer's set it themselves).
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!reply.hasHeader('x-cache')) reply.header('x-cache', 'BYPASS');
    if (!reply.hasHeader(REQUEST_ID_HEADER)) reply.header(REQUEST_ID_HEADER, request.id);
    done(null, payload);
  });
  if (gate !== null) registerRateLimit(app, gate, rateLimitExempt(registry, s.operators), s.address);
  const payer = gate === null ? null : payerOf(gate);
  registerApiRoutes(app, { ...common, catalogue, resolver, limits: config.limits, fast: s.fast, payer });
  registerPageRoutes(app, {
    ...common,
    pages,
    requestTimeoutMs: config.limits.requestTimeoutMs,
    payer,
    fast: s.fast,
  });
  // Batches count per item: the limiter's hook counted the POST, chargeBatch the other items.
  registerBatchRoute(app, {
    ...common,
    catalogue,
    resolver,
    chain: tracker,
    limits: config.limits,
    chargeBatch: gate === null ? null : chargeBatchWith(gate),
    payer,
  });
  const stream = createHeadStream({
    app,
    config: config.stream,
    registry: prom.registry,
    tracker,
    refresh: s.refresh,
    blockList: catalogue.get(blockListEndpoint.path),
    txList: catalogue.get(txListEndpoint.path),
    touched: s.touched,
    limits: config.limits,
    resolver,
    clock,
    logger,
    shared:
      s.fleet === null
        ? null
        : new SharedHeadHistory({
            client: s.fleet.client,
            config: config.redis,
            namespace: s.fleet.namespace,
            length: config.stream.history,
            maxAgeMs: config.stream.historyMaxAgeMs,
          }),
    record: s.fleet?.record ?? null,
  });
  // The home page moves with the head: recompose it (when clients read it) before its pollers ask.
  if (config.refreshAhead.maxKeys > 0)
    s.refresh.addTarget({ name: 'pages/home', refresh: () => pages.refresh('home', {}, true) });

  registerOpsRoutes(app, {
    readiness: s.readiness,
    upstreams: () => s.pool.status(),
    chain: tracker,
    cache: () => ({
      memory: {
        entries: s.memory.entries,
        bytes: s.memory.bytes,
        maxBytes: config.cacheMaxBytes,
        flightsInProgress: resolver.inFlight,
      },
      redis: s.fleet ? { healthy: s.fleet.healthy() } : null,
      invalidation: s.invalidation?.status() ?? { mode: 'head', unchangedRefetches: s.headRefetches.snapshot() },
      refetches: s.refetches.totals(),
      purge: s.purge.purger.status(),
    }),
    metrics: prom,
    startedAt: Date.now(),
    adminGate: s.operators.admin,
    metricsCacheMs: config.metricsCacheMs,
    upstreamIsSimulator: s.upstreamIsSimulator,
    consensus: () => s.quorum?.snapshot() ?? null,
    activity: () => stream.activity.status(),
    heads: () => s.headWatch.status(),
    fleet: () => s.fleet?.members.view() ?? null,
    reload: () => s.live.status(),
    passthrough: () => passthroughStatus(passthrough),
  });
  registerPurgeRoute(app, {
    purger: s.purge.purger,
    catalogue,
    limits: config.limits,
    gate: s.operators.purge,
    passKey: passKeyOf(passthrough.table),
  });
  // Registered without PASSTHROUGH too: a reload may add the first prefix.
  await registerPassthrough(app, {
    cache: passthrough,
    connectTimeoutMs: config.upstream.connectTimeoutMs,
    connections: config.upstream.connections,
    epilogue,
    trustProxy: config.trustProxy,
    payer,
    clock,
    fast: s.fast,
  });
  registerDashboard(app, { adminGate: s.operators.admin, registry: prom.registry });
  const documents = (): OpenApiDocuments => {
    const full = buildOpenApiDocument({
      publicBaseUrl: config.publicBaseUrl,
      contributions: [
        apiOpenapi(catalogue, config.limits),
        opsOpenapi(),
        purgeOpenapi(),
        dashboardOpenapi(),
        pagesOpenapi(pages.table(), config.limits),
        batchOpenapi(config.limits),
        streamOpenapi(),
        activityOpenapi(),
      ],
    });
    return { full, public: withoutPaths(full, (p) => (registry.rule(p)?.operator ?? null) !== null) };
  };
  const replaceDocuments = registerOpenApiRoute(app, documents(), s.operators.admin);
  // After the stages' swap points (src/stages.ts): the page table and the policies are the new ones.
  s.live.onChange(() => {
    registry.setPages(pages.names());
    replaceDocuments(documents());
  });
  registerFallbacks(app, registry, s.operators);
  return stream;
}
