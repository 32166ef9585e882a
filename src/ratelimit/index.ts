/**
 * Builds the rate limiter of a replica from the validated Config: null when
 * RATE_LIMIT_ENABLED is false (callers check once; the miss budget and
 * credits are off with it), else the limiter with its metrics, credit prices
 * and miss budget, reconciled through Redis when the fleet has a client. The
 * reconciliation has its own breaker (same settings as the tier's), so a
 * Redis fault is seen by both alike without sharing state between modules.
 */
import type { Registry } from 'prom-client';
import { Breaker } from '../common/breaker.js';
import type { Config } from '../config/types.js';
import type { Metrics } from '../metrics/types.js';
import type { RedisClient } from '../redis/client.js';
import { MissBudget } from './miss-budget.js';
import { CreditPrices } from './prices.js';
import { RateLimiter } from './limiter.js';
import { createRateLimitMetrics, type RateLimitMetrics } from './metrics.js';

/** The limiter and what it charges with, as the HTTP edge uses it (src/http/rate-limit.ts). */
export interface RateLimitGate {
  limiter: RateLimiter;
  metrics: Metrics;
  rl: RateLimitMetrics;
  prices: CreditPrices;
  budget: MissBudget;
}

export interface GateDeps {
  redis: RedisClient | null;
  metrics: Metrics;
  registry: Registry;
  clock: () => number;
}

export function createRateLimitGate(config: Config, d: GateDeps): RateLimitGate | null {
  if (!config.rateLimit.enabled) return null;
  const { redis: r } = config;
  const limiter = new RateLimiter({
    config: config.rateLimit,
    allow: config.rateLimitAllow,
    apiKeys: config.apiKeys,
    missBudget: config.missBudget,
    maxBuckets: config.rateLimit.maxClients,
    clock: d.clock,
    redis:
      d.redis === null
        ? null
        : {
            guard: {
              client: d.redis,
              breaker: new Breaker({ failures: r.breakerFailures, cooldownMs: r.breakerCooldownMs }),
              timeoutMs: r.commandTimeoutMs,
              metrics: d.metrics,
            },
            keyPrefix: r.keyPrefix,
          },
  });
  limiter.start();
  const rl = createRateLimitMetrics(d.registry, limiter.keyNames(), {
    buckets: () => limiter.buckets,
    missBuckets: () => limiter.missBuckets,
  });
  const prices = new CreditPrices(config.credits, config.creditCosts);
  return { limiter, metrics: d.metrics, rl, prices, budget: new MissBudget(limiter, prices, rl) };
}
