/**
 * Credit prices of X-API-Key requests: per request (`hit`, charged hit or
 * miss) and on top per upstream request led (`miss`), by endpoint
 * (`tx/list`) or page (`pages/home`), falling back to CREDITS_HIT_COST and
 * CREDITS_MISS_COST. A page part's miss costs the page's `miss` when the page
 * sets one, else its endpoint's.
 */
import type { CreditCosts, CreditsConfig } from '../config/types.js';

export class CreditPrices {
  readonly #hit = new Map<string, number>();
  readonly #miss = new Map<string, number>();
  hitCost = 0;
  missCost = 0;

  constructor(defaults: CreditsConfig, costs: CreditCosts) {
    this.replace(defaults, costs);
  }

  /** New prices in place (a reload). */
  replace(defaults: CreditsConfig, costs: CreditCosts): void {
    this.hitCost = defaults.hitCost;
    this.missCost = defaults.missCost;
    this.#hit.clear();
    this.#miss.clear();
    for (const [name, c] of Object.entries(costs)) {
      if (c.hit !== undefined) this.#hit.set(name, c.hit);
      if (c.miss !== undefined) this.#miss.set(name, c.miss);
    }
  }

  /** Price of one request to `name` (an endpoint, `pages/<page>`, or any other path: the default). */
  hit(name: string): number {
    return this.#hit.get(name) ?? this.hitCost;
  }

  /** Price of one upstream request for `endpoint`, led by a request to `page` (null: a direct request). */
  miss(page: string | null, endpoint: string): number {
    return (page === null ? undefined : this.#miss.get(page)) ?? this.#miss.get(endpoint) ?? this.missCost;
  }
}
