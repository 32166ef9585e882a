/**
 * The miss budget: what a client pays for the upstream requests it leads.
 * An IP client (TRUST_PROXY, IPv6 /64: the rate limiter's identity) has
 * RATE_LIMIT_MISS_BUDGET per window, one per led request; an API key pays
 * its miss price in credits from its own bucket; allowlisted clients pay
 * nothing. Counting is the limiter's (synchronous, fleet-reconciled in the
 * background), so nothing here waits for Redis.
 */
import type { RateLimiter } from './limiter.js';
import type { RateLimitMetrics } from './metrics.js';
import type { CreditPrices } from './prices.js';

const isKey = (clientKey: string): boolean => clientKey.charCodeAt(0) === 107; /* 'k': `key:<name>` */

export class MissBudget {
  constructor(
    readonly limiter: RateLimiter,
    readonly prices: CreditPrices,
    readonly rl: RateLimitMetrics,
  ) {}

  /** Charges one led upstream request: 0 when paid, else ms until the client could pay. */
  lead(clientKey: string, page: string | null, endpoint: string): number {
    let wait: number;
    if (isKey(clientKey)) {
      const cost = this.prices.miss(page, endpoint);
      if (cost === 0) return 0;
      wait = this.limiter.take(clientKey, cost);
      if (wait === 0) this.rl.credits(clientKey, cost);
    } else {
      wait = this.limiter.takeMiss(clientKey);
    }
    if (wait === 0) this.rl.missCharged(clientKey);
    else this.rl.missRefused(clientKey);
    return wait;
  }

  /** Gives back what `lead` charged (the fetch was done by another replica). */
  refund(clientKey: string, page: string | null, endpoint: string): void {
    if (isKey(clientKey)) this.limiter.give(clientKey, this.prices.miss(page, endpoint));
    else this.limiter.giveMiss(clientKey);
  }

  /** Credits left to an API key (announced on its answers). */
  remaining(clientKey: string): number {
    return this.limiter.remaining(clientKey);
  }
}
