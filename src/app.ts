/**
 * Composition root: the stages from a validated Config (src/stages.ts), one
 * Fastify server in front of them (its options here), the HTTP surface
 * (src/surface.ts), and an orderly close. No stage knows about the others
 * beyond its constructor's interfaces.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import type { ChainTracker } from './chain/tracker.js';
import type { MemoryStore } from './cache/memory-store.js';
import type { Config } from './config/types.js';
import { drain, trackResponses } from './http/drain.js';
import { LameDuck } from './http/lame-duck.js';
import { once } from './common/once.js';
import { fastServerFactory } from './http/fast-hit.js';
import { REQUEST_ID_HEADER, requestIdOf } from './http/request-id.js';
import { installEnvelopeWriter } from './http/envelope-writer.js';
import { applyEdgeLimits, edgeServerOptions } from './http/server-limits.js';
import { registerSurface } from './surface.js';
import type { Pages } from './pages/engine.js';
import type { Resolver } from './pipeline/resolver.js';
import { buildStages, type Stages } from './stages.js';
import type { HeadStream } from './stream/index.js';
import type { OperatorAccess } from './http/admin-gate.js';

export interface ProxyOptions {
  logger?: Logger;
  /** Clock in ms (tests inject a fake one). */
  clock?: () => number;
  /** The upstream is the built-in chain simulator: every API answer says so (X-Chainproxy-Upstream). */
  upstreamIsSimulator?: boolean;
  /** This process is cluster worker number `worker` (WORKERS > 1); absent: the only one. */
  worker?: number;
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
  /** Resolves when every upstream has answered (or failed) its first probe. */
  firstProbe: Promise<void>;
  /** ADMIN_ALLOW, PURGE_ALLOW and ADMIN_HOSTS as the gates read them: `operators.set(…)` swaps them live. */
  operators: OperatorAccess;
  /** `lameDuckMs`: /readyz answers 503 this long, everything still served, before the drain. */
  close(lameDuckMs?: number): Promise<void>;
}

function createServer(config: Config, s: Stages): FastifyInstance {
  const app = Fastify({
    ...edgeServerOptions(config.http, s.writer),
    // Repeated fresh hits are answered before the router (src/http/fast-hit.ts).
    serverFactory: fastServerFactory(s.fast),
    loggerInstance: s.logger as FastifyBaseLogger,
    // One access-log line per request is written by the routes (ACCESS_LOG), not by Fastify.
    logController: new LogController({ disableRequestLogging: true }),
    // The one trust of X-Forwarded-For (src/http/client-address.ts): request.ip and the fast path agree.
    trustProxy: s.address.fastifyTrust,
    // During the drain a request on a busy keep-alive connection is served (Fastify adds
    // Connection: close); its own 503 body would not be an envelope. See http/drain.ts.
    return503OnClosing: false,
    // Not Fastify's header reading (it takes any value): the client's id only when reasonable (request-id.ts).
    requestIdHeader: false,
    genReqId: (req) => requestIdOf(req.headers[REQUEST_ID_HEADER]),
    // No per-request child logger (it costs more than a cache hit): log lines carry reqId themselves.
    childLoggerFactory: (parent) => parent,
    // The API routes parse the raw query themselves (duplicates, encodings, control characters).
    routerOptions: { querystringParser: () => ({}) },
  });
  applyEdgeLimits(app, config.http);
  installEnvelopeWriter(app, s.writer);
  return app;
}

export async function buildProxy(config: Config, opts: ProxyOptions = {}) {
  const s = buildStages(
    config,
    opts.logger ?? pino({ level: config.logLevel }),
    opts.clock ?? Date.now,
    opts.upstreamIsSimulator ?? false,
    opts.worker ?? null,
  );
  const app = createServer(config, s);
  const stream = await registerSurface(app, config, s);
  const { pool, fleet, gate, fast, logger } = s;
  pool.start();

  const open = trackResponses(app.server);
  const closePool = once(() => pool.close());
  const lameDuck = new LameDuck();
  /** `lameDuckMs`: readiness says not ready this long, everything still served, before the drain begins. */
  const close = async (lameDuckMs = 0) => {
    s.serving.draining = true;
    if (lameDuckMs > 0) {
      logger.info({ drainDelayMs: lameDuckMs }, 'lame duck: /readyz answers 503, requests still served');
      await lameDuck.wait(lameDuckMs);
    }
    fast?.close();
    s.refresh.close();
    // Its block being read needs the upstream pool: awaited before the pool closes.
    const reading = s.invalidation?.close();
    // As last reloaded.
    const { shutdownTimeoutMs } = s.live.current;
    const r = await drain({
      server: app.server,
      open,
      close: () => app.close(),
      abortUpstream: closePool,
      deadlineMs: shutdownTimeoutMs,
      writer: s.writer,
    });
    if (r.timedOut)
      logger.warn(
        { shutdownTimeoutMs, cut: r.cut },
        'drain deadline reached: requests still running were answered 503',
      );
    await reading;
    await closePool();
    await gate?.limiter.close();
    await s.duty?.close();
    await fleet?.close();
  };
  const { resolver, tracker, memory, pages, operators } = s;
  return {
    app,
    resolver,
    tracker,
    memory,
    pool,
    fleet,
    duty: s.duty,
    pages,
    stream,
    limiter: gate?.limiter ?? null,
    fast,
    operators,
    close,
    /** Ends the lame duck now (a second signal): the drain begins. */
    hurry: () => lameDuck.hurry(),
    live: s.live,
    /** What each block changed, as published here (tests wait on it). */
    touched: s.touched,
    /** Precise invalidation (null: INVALIDATION_MODE=head). */
    invalidation: s.invalidation,
  };
}

export async function startProxy(config: Config, opts: ProxyOptions = {}): Promise<ProxyHandle> {
  const built = await buildProxy(config, opts);
  const address = await built.app.listen({ port: config.port, host: config.host });
  const url = address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '[::1]');
  return {
    url,
    app: built.app,
    resolver: built.resolver,
    tracker: built.tracker,
    memory: built.memory,
    pages: built.pages,
    stream: built.stream,
    firstProbe: built.pool.firstProbe,
    operators: built.operators,
    close: built.close,
  };
}
