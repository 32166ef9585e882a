/**
 * Per-client-IP rate limiting (@fastify/rate-limit), shared by the fleet
 * through its Redis store when a Redis client is given, else per process.
 *
 * Decision (issue 5, "hits may be limited more loosely than misses"): one
 * budget per client IP, counted on every API request, hit or miss. It is the
 * simplest honest rule: a client learns nothing about the cache from the limit,
 * and limiting happens before any cache or upstream work. Upstream load from a
 * single client is already bounded by the single flights.
 *
 * - Client IP is `request.ip`: the app's Fastify `trustProxy` (Config.trustProxy
 *   CIDRs) decides which X-Forwarded-For hops are believed; IPv6 clients are
 *   grouped per /64 (plugin default).
 * - Only API routes are limited: /healthz, /readyz, /metrics, /status never are.
 * - Over the limit: 429, the `{code, msg, data}` RATE_LIMITED envelope,
 *   Retry-After (seconds) and X-RateLimit-*; `metrics.rateLimited()`. The reply is
 *   sent from this module's own onRequest hook (the plugin is registered with
 *   `global: false` and driven through `createRateLimit`), so the answer does not
 *   depend on the app's error handler.
 * - Fail open, fast: `skipOnError: true`; the Redis client has no offline queue
 *   and a short command timeout, so a dead Redis costs nothing and a blackholed
 *   one at most the command timeout per request.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RateLimitConfig } from '../config/types.js';
import { ProxyError } from '../errors/catalog.js';
import type { Metrics } from '../metrics/types.js';
import type { RedisClient } from '../redis/client.js';

/** Never limited. */
export const UNLIMITED_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics', '/status']);

export interface RateLimitOptions {
  config: RateLimitConfig;
  redis: RedisClient | null;
  metrics?: Metrics;
  keyGenerator?: (req: FastifyRequest) => string;
  /** Redis key namespace of the counters. */
  nameSpace?: string;
}

function pathOf(req: FastifyRequest): string {
  const url = req.raw.url ?? '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Generic over the logger so an app built with `loggerInstance: pino(...)` type-checks. */
export async function registerRateLimit<L extends FastifyBaseLogger>(
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, L>,
  opts: RateLimitOptions,
): Promise<void> {
  const { config } = opts;
  if (!config.enabled) return;
  await app.register(rateLimit, {
    global: false,
    max: config.max,
    timeWindow: config.windowMs,
    skipOnError: true,
    ...(opts.redis !== null ? { redis: opts.redis, nameSpace: opts.nameSpace ?? 'chainproxy:rl:' } : {}),
    ...(opts.keyGenerator !== undefined ? { keyGenerator: opts.keyGenerator } : {}),
  });
  const limiter = app.createRateLimit();
  const body = new ProxyError('RATE_LIMITED').toBody();

  app.addHook('onRequest', async (req, reply) => {
    if (UNLIMITED_PATHS.has(pathOf(req))) return;
    const r = await limiter(req);
    if (r.isAllowed) return;
    const reset = String(r.ttlInSeconds);
    reply.header('x-ratelimit-limit', String(r.max)).header('x-ratelimit-reset', reset);
    if (!r.isExceeded) {
      reply.header('x-ratelimit-remaining', String(r.remaining));
      return;
    }
    opts.metrics?.rateLimited();
    return reply
      .code(429)
      .header('x-ratelimit-remaining', '0')
      .header('retry-after', String(Math.max(1, r.ttlInSeconds)))
      .header('content-type', 'application/json; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('access-control-allow-origin', '*')
      .header('access-control-expose-headers', 'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset')
      .send(body);
  });
}
