/**
 * Strikes against upstreams found in the minority of a dispute: `strikes`
 * of them within `windowMs` bench the upstream (sit-out.ts). Its strikes are
 * cleared when it is benched, so it comes back with a clean record.
 */
import type { SitOuts } from '../upstream/sit-out.js';

export interface MisbehaviourOptions {
  strikes: number;
  windowMs: number;
  sitOuts: SitOuts;
  clock?: () => number;
}

export class Misbehaviour {
  readonly #o: MisbehaviourOptions;
  readonly #clock: () => number;
  readonly #strikes = new Map<string, number[]>();

  constructor(o: MisbehaviourOptions) {
    this.#o = o;
    this.#clock = o.clock ?? Date.now;
  }

  /** `upstream` was in the minority of a dispute about `key`. */
  minority(upstream: string, key: string): void {
    const now = this.#clock();
    const recent = (this.#strikes.get(upstream) ?? []).filter((at) => now - at < this.#o.windowMs);
    recent.push(now);
    if (recent.length < this.#o.strikes) {
      this.#strikes.set(upstream, recent);
      return;
    }
    this.#strikes.delete(upstream);
    this.#o.sitOuts.bench(
      upstream,
      'disputes',
      `minority of ${recent.length} disputes within ${this.#o.windowMs} ms (last: ${key})`,
    );
  }

  /** Strikes of `upstream` within the window now. */
  count(upstream: string): number {
    const now = this.#clock();
    return (this.#strikes.get(upstream) ?? []).filter((at) => now - at < this.#o.windowMs).length;
  }
}
