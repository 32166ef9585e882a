/**
 * Batch charging over @fastify/rate-limit: a batch of n items costs n
 * requests. The limiter's onRequest hook has counted the POST once; the other
 * n - 1 are taken here from the same store (same client key, same window).
 */
import type { FastifyRequest } from 'fastify';
import { ProxyError } from '../errors/catalog.js';
import type { Metrics } from '../metrics/types.js';
import type { ChargeBatch } from './batch-route.js';

/** What `app.createRateLimit()` returns (one call = one request counted). */
export type Limiter = (req: FastifyRequest) => Promise<{ isAllowed: true } | { isAllowed: false; isExceeded: boolean }>;

export function chargeBatchWith(limiter: Limiter, metrics: Metrics | null): ChargeBatch {
  return async (request, items) => {
    let exceeded = false;
    for (let i = 1; i < items; i++) {
      const r = await limiter(request);
      // isAllowed: an allow-listed client, never limited.
      if (r.isAllowed) return null;
      if (r.isExceeded) exceeded = true;
    }
    if (!exceeded) return null;
    metrics?.rateLimited();
    return new ProxyError('RATE_LIMITED', 'rate limit exceeded: a batch counts one request per item');
  };
}
