/**
 * Recent latency of one upstream: a small ring buffer (for p50/p99 and the
 * hedge quantile) and an EWMA (the selection tie-breaker, which reacts to a
 * backend slowing down within a few samples).
 */
import { nearestRank } from '../common/nearest-rank.js';

/** Answers the quantiles of one upstream are taken over (its most recent ones). */
export const LATENCY_SAMPLES = 64;

export class LatencyStats {
  readonly #ring: number[];
  #next = 0;
  #count = 0;
  #ewma: number | null = null;
  readonly #alpha: number;

  constructor(size = LATENCY_SAMPLES, alpha = 0.3) {
    this.#ring = new Array<number>(size).fill(0);
    this.#alpha = alpha;
  }

  record(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    this.#ring[this.#next] = ms;
    this.#next = (this.#next + 1) % this.#ring.length;
    if (this.#count < this.#ring.length) this.#count++;
    this.#ewma = this.#ewma === null ? ms : this.#ewma + this.#alpha * (ms - this.#ewma);
  }

  /**
   * A slow failure (timeout, outrun by a hedge): raises the EWMA so selection
   * moves away, but is no latency sample (quantiles, used for hedging, come
   * from good answers only).
   */
  penalize(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    this.#ewma = this.#ewma === null ? ms : this.#ewma + this.#alpha * (ms - this.#ewma);
  }

  get samples(): number {
    return this.#count;
  }

  /** Exponentially weighted moving average; null before the first sample. */
  get ewma(): number | null {
    return this.#ewma;
  }

  /** Nearest-rank quantile (0..1) of the recent samples; null when there are none. */
  quantile(q: number): number | null {
    if (this.#count === 0) return null;
    const sorted = this.#ring.slice(0, this.#count).sort((a, b) => a - b);
    return nearestRank(sorted, q);
  }
}
