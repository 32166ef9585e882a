/**
 * Passthrough routes: legacy path prefixes forwarded by @fastify/http-proxy,
 * streamed both ways and never cached. Registered as plugins of the app, so
 * the app's onRequest hooks (the rate limiter) run for them as for the API.
 *
 * - GET, HEAD and OPTIONS are forwarded; other methods get the 405 envelope.
 * - Hop-by-hop headers are dropped both ways, Set-Cookie from the backend too;
 *   credentials and forwarding headers as forwarding.ts says.
 * - Backend failures before the response headers become 502/504 envelopes; a
 *   failure while streaming the body can only cut the connection.
 * - A backend's 503 is relayed as it is (reply-from's own 503 retries are off),
 *   with `Retry-After: 1` added when the backend gave none (every 503 has one).
 */
import httpProxy from '@fastify/http-proxy';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { AddressList } from '../common/address-list.js';
import type { PassthroughConfig, PassthroughRoute } from '../config/types.js';
import { ProxyError, RETRY_AFTER_503_SECONDS } from '../errors/catalog.js';
import { sendError } from '../http/envelope-writer.js';
import { exitOf, NOT_COUNTED, type Epilogue, type Family } from '../http/epilogue.js';
import { relayed } from '../http/serve.js';
import { passthroughError } from './failure.js';
import { forwardingHeaders } from './forwarding.js';
import { requestHeadersFor, responseHeadersFor } from './headers.js';
import type { PassthroughMetrics } from './metrics.js';

export interface PassthroughDeps {
  config: PassthroughConfig;
  /** Connect timeout to a backend. */
  connectTimeoutMs: number;
  /** Keep-alive connections per backend origin. */
  connections: number;
  metrics: PassthroughMetrics | null;
  /** Counts and logs every relayed answer (never a hit: one line unless ACCESS_LOG=off). */
  epilogue: Epilogue;
  /** TRUST_PROXY: peers whose forwarding headers are believed and relayed. */
  trustProxy: readonly string[];
}

const FORWARDED_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Upstream origin and the path that replaces the prefix (nginx proxy_pass rules). */
function destinationOf(route: PassthroughRoute): { upstream: string; rewritePrefix: string } {
  const u = new URL(route.target);
  const path = u.pathname.replace(/\/+$/, '');
  return { upstream: u.origin, rewritePrefix: path === '' ? route.prefix : path };
}

async function registerRoute(
  app: FastifyInstance,
  route: PassthroughRoute,
  deps: PassthroughDeps,
  trusted: AddressList,
): Promise<void> {
  const { metrics, epilogue } = deps;
  const family: Family = {
    count: metrics === null ? NOT_COUNTED : metrics.request,
    msg: 'request',
    field: 'passthrough',
  };
  const exit = exitOf(family, route.prefix);
  const { upstream, rewritePrefix } = destinationOf(route);
  await app.register(async (scope) => {
    // Own handler: the plugin's scope would otherwise keep whichever handler existed when it was registered.
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      if ((error.statusCode ?? 500) < 500)
        return sendError(reply, new ProxyError('BAD_REQUEST', `bad request: ${error.message.slice(0, 120)}`));
      request.log.error({ reqId: request.id, err: error, passthrough: route.prefix }, 'passthrough error');
      return sendError(reply, new ProxyError('INTERNAL'));
    });
    scope.addHook('onResponse', async (request, reply) => {
      const started = performance.now() - reply.elapsedTime;
      epilogue.finish(exit, relayed(reply.statusCode), started, { kind: 'sent', request });
    });
    await scope.register(httpProxy, {
      upstream,
      prefix: route.prefix,
      rewritePrefix,
      // Error envelopes and the rate limiter reply themselves; keep Fastify from logging each request.
      disableRequestLogging: true,
      retryMethods: [],
      undici: {
        connections: deps.connections,
        pipelining: 1,
        headersTimeout: deps.config.timeoutMs,
        bodyTimeout: deps.config.timeoutMs,
        connect: { timeout: deps.connectTimeoutMs, rejectUnauthorized: true },
      },
      preHandler: async (request, reply) => {
        if (FORWARDED_METHODS.has(request.method)) return;
        sendError(reply, new ProxyError('METHOD_NOT_ALLOWED'), { extra: ['allow', 'GET, HEAD, OPTIONS'] });
        return reply;
      },
      replyOptions: {
        rewriteRequestHeaders: (request, headers) => forwardingHeaders(request, requestHeadersFor(headers), trusted),
        rewriteHeaders: (headers) => responseHeadersFor(headers),
        onResponse: (_request, reply, res) => {
          if (res.statusCode === 503 && !reply.hasHeader('retry-after'))
            reply.header('retry-after', RETRY_AFTER_503_SECONDS);
          reply.send(res.stream);
        },
        onError: (reply, { error }) => {
          const { err, reason } = passthroughError(error);
          metrics?.failure(route.prefix, reason);
          sendError(reply as FastifyReply, err);
        },
      },
    });
  });
}

export async function registerPassthrough(app: FastifyInstance, deps: PassthroughDeps): Promise<void> {
  const trusted = new AddressList(deps.trustProxy);
  for (const route of deps.config.routes) await registerRoute(app, route, deps, trusted);
}
