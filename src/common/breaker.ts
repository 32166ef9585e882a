/**
 * Circuit breaker of one upstream or of the Redis tier. Closed: everything passes; after
 * `failures` consecutive failures it opens. Open: nothing passes until
 * `cooldownMs` have elapsed; then it is half-open and lets exactly one trial
 * (a request or a probe) through. The trial's success closes it, its failure
 * reopens it for another cooldown. A trial that ends neither way (cancelled)
 * frees the slot. The clock is injected so tests drive time.
 */
export type BreakerState = 'closed' | 'open' | 'half-open';

/** 'pass': let through while closed; 'trial': the one half-open slot. */
export type Permit = 'pass' | 'trial';

export interface BreakerOptions {
  failures: number;
  cooldownMs: number;
  clock?: () => number;
}

export class Breaker {
  readonly #threshold: number;
  readonly #cooldownMs: number;
  readonly #clock: () => number;
  #consecutive = 0;
  #openedAt: number | null = null;
  #trialInFlight = false;

  constructor(opts: BreakerOptions) {
    this.#threshold = Math.max(1, opts.failures);
    this.#cooldownMs = opts.cooldownMs;
    this.#clock = opts.clock ?? Date.now;
  }

  state(): BreakerState {
    if (this.#openedAt === null) return 'closed';
    return this.#clock() - this.#openedAt >= this.#cooldownMs ? 'half-open' : 'open';
  }

  /** Whether `tryAcquire` would succeed now (no side effect; used by selection). */
  canPass(): boolean {
    const s = this.state();
    return s === 'closed' || (s === 'half-open' && !this.#trialInFlight);
  }

  /**
   * Takes permission for one call. Returns 'pass' (closed), 'trial' (the one
   * half-open slot, which the caller must end with success/failure/release)
   * or null (refused).
   */
  tryAcquire(): Permit | null {
    const s = this.state();
    if (s === 'closed') return 'pass';
    if (s === 'half-open' && !this.#trialInFlight) {
      this.#trialInFlight = true;
      return 'trial';
    }
    return null;
  }

  /**
   * The call holding `token` succeeded: closes the breaker (a late success
   * of a call let through while closed does not close an open breaker).
   */
  success(token: Permit): void {
    if (token === 'trial' || this.#openedAt === null) {
      this.#consecutive = 0;
      this.#openedAt = null;
      this.#trialInFlight = false;
    }
  }

  /** The call holding `token` failed: counts towards opening, or reopens after a failed trial. */
  failure(token: Permit): void {
    if (token === 'trial') {
      this.#trialInFlight = false;
      this.#openedAt = this.#clock();
      return;
    }
    if (this.#openedAt !== null) return;
    this.#consecutive++;
    if (this.#consecutive >= this.#threshold) this.#openedAt = this.#clock();
  }

  /** Ends a call that neither succeeded nor failed (e.g. cancelled). */
  release(token: Permit): void {
    if (token === 'trial') this.#trialInFlight = false;
  }

  get consecutiveFailures(): number {
    return this.#consecutive;
  }
}
