/**
 * Batch charging: a batch of n items costs n requests (for an API key, n
 * times CREDITS_HIT_COST). The rate limiter's onRequest hook has charged the
 * POST once (and refused unknown API keys); the other n - 1 are charged here
 * to the same client key, all or nothing. Items that lead upstream requests
 * are charged one by one as they do (the miss budget, src/budget/).
 */
import { ProxyError } from '../errors/catalog.js';
import type { ChargeBatch } from './batch-route.js';
import type { RateLimitGate } from '../ratelimit/index.js';
import { charge, hitCost, requestClientKey } from './rate-limit.js';

export function chargeBatchWith(gate: RateLimitGate): ChargeBatch {
  return (request, items) => {
    if (items <= 1) return Promise.resolve(null);
    const key = requestClientKey(gate.limiter, request);
    const wait = charge(gate, key, (items - 1) * hitCost(gate, key, 'batch'));
    if (wait === 0) return Promise.resolve(null);
    gate.metrics.rateLimited();
    return Promise.resolve(
      new ProxyError(
        'RATE_LIMITED',
        `rate limit exceeded: a batch counts one request per item; retry in ${Math.ceil(Math.max(wait, 0) / 1000)} s`,
      ),
    );
  };
}
