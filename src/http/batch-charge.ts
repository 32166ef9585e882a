/**
 * Batch charging: a batch of n items costs n requests. The rate limiter's
 * onRequest hook has charged the POST once (and refused unknown API keys);
 * the other n - 1 are charged here to the same client key, all or nothing.
 */
import { ProxyError } from '../errors/catalog.js';
import type { ChargeBatch } from './batch-route.js';
import { charge, requestClientKey, type RateLimitGate } from './rate-limit.js';

export function chargeBatchWith(gate: RateLimitGate): ChargeBatch {
  return (request, items) => {
    if (items <= 1) return Promise.resolve(null);
    const wait = charge(gate, requestClientKey(gate.limiter, request), items - 1);
    if (wait === 0) return Promise.resolve(null);
    gate.metrics.rateLimited();
    return Promise.resolve(new ProxyError('RATE_LIMITED', `rate limit exceeded: a batch counts one request per item; retry in ${Math.ceil(Math.max(wait, 0) / 1000)} s`));
  };
}
