/**
 * A tiny consecutive-failure breaker for the Redis tier.
 *
 *   closed     every call allowed; `failures` consecutive failures open it
 *   open       nothing allowed for `cooldownMs`
 *   half-open  after the cooldown one probe is allowed; success closes, failure reopens
 *
 * A probe that never reports (caller lost) is given up after another cooldown.
 */
export type BreakerState = 'closed' | 'open' | 'half-open';

export class Breaker {
  readonly #failures: number;
  readonly #cooldownMs: number;
  readonly #clock: () => number;
  #consecutive = 0;
  #openedAt: number | null = null;
  #probeAt: number | null = null;

  constructor(failures: number, cooldownMs: number, clock: () => number = Date.now) {
    this.#failures = Math.max(1, Math.trunc(failures));
    this.#cooldownMs = Math.max(0, cooldownMs);
    this.#clock = clock;
  }

  get state(): BreakerState {
    if (this.#openedAt === null) return 'closed';
    return this.#clock() - this.#openedAt >= this.#cooldownMs ? 'half-open' : 'open';
  }

  /** May a call go out now? In half-open, true for one probe at a time. */
  allow(): boolean {
    if (this.#openedAt === null) return true;
    const now = this.#clock();
    if (now - this.#openedAt < this.#cooldownMs) return false;
    if (this.#probeAt !== null && now - this.#probeAt < this.#cooldownMs) return false;
    this.#probeAt = now;
    return true;
  }

  success(): void {
    this.#consecutive = 0;
    this.#openedAt = null;
    this.#probeAt = null;
  }

  failure(): void {
    this.#consecutive++;
    if (this.#openedAt !== null || this.#consecutive >= this.#failures) {
      this.#openedAt = this.#clock();
      this.#probeAt = null;
    }
  }
}
