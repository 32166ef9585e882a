/**
 * Token buckets per client key, in memory. A bucket holds up to `cap` tokens
 * and refills at `cap / windowMs` per ms; a request takes `cost` tokens or is
 * refused with the time until it could pass. O(1) per request: one Map lookup
 * and arithmetic, no allocation once the client has a bucket, no timers.
 *
 * Fleet debits (`debit`) may push a bucket below zero: the other replicas
 * spent the budget, so this one waits for the refill too.
 *
 * Bounded: at most `maxBuckets`. A bucket idle for its whole window is full
 * again, i.e. the same as no bucket; such buckets are dropped lazily, oldest
 * first, when new clients arrive, and past the bound the oldest bucket is
 * dropped even if not idle (that client starts again with a full budget).
 */

export interface Budget {
  /** Tokens when full (requests per window). */
  max: number;
  windowMs: number;
  /** Never limited (allowlisted). */
  unlimited: boolean;
}

export class Bucket {
  tokens: number;
  at: number;
  /** Admitted since the last fleet flush. */
  pending = 0;
  /** Listed for the next fleet reconciliation round. */
  watched = false;
  /** Last admission (ms). */
  lastTake: number;
  // Fleet view of the current window.
  window = -1;
  mine = 0;
  others = 0;
  rate: number;

  constructor(
    readonly key: string,
    public budget: Budget,
    now: number,
  ) {
    this.tokens = budget.max;
    this.at = now;
    this.lastTake = now;
    this.rate = budget.max / budget.windowMs;
  }

  /** A new budget (a reload): the same share of it left as of the old one. */
  rebudget(budget: Budget): void {
    const share = this.budget.unlimited || budget.unlimited ? 1 : this.tokens / this.budget.max;
    this.budget = budget;
    this.rate = budget.max / budget.windowMs;
    this.tokens = share * budget.max;
  }
}

/** Budget of a new client key (allowlist and API keys are decided here, once per bucket). */
export type BudgetOf = (clientKey: string) => Budget;

const SCAN_ON_INSERT = 4;

export class BucketTable {
  readonly #map = new Map<string, Bucket>();
  readonly #budgetOf: BudgetOf;
  readonly #maxBuckets: number;
  /** Called when a bucket admits a request while not listed for the next fleet round. */
  onActive: ((b: Bucket) => void) | null = null;

  constructor(budgetOf: BudgetOf, maxBuckets: number) {
    this.#budgetOf = budgetOf;
    this.#maxBuckets = Math.max(1, maxBuckets);
  }

  get size(): number {
    return this.#map.size;
  }

  /** Every bucket takes its client's budget again (a reload changed the budgets). */
  rebudget(): void {
    for (const [key, b] of this.#map) b.rebudget(this.#budgetOf(key));
  }

  get(clientKey: string): Bucket | undefined {
    return this.#map.get(clientKey);
  }

  /** 0 when admitted (cost taken), else ms until `cost` tokens are there. */
  take(clientKey: string, cost: number, now: number): number {
    const b = this.#map.get(clientKey) ?? this.#create(clientKey, now);
    if (b.budget.unlimited) return 0;
    const refilled = b.tokens + (now - b.at) * b.rate;
    const tokens = refilled > b.budget.max ? b.budget.max : refilled;
    b.at = now;
    if (tokens >= cost) {
      b.tokens = tokens - cost;
      b.pending += cost;
      b.lastTake = now;
      if (!b.watched && this.onActive !== null) {
        b.watched = true;
        this.onActive(b);
      }
      return 0;
    }
    b.tokens = tokens;
    return Math.max(1, Math.ceil((cost - tokens) / b.rate));
  }

  /** Gives back `cost` taken earlier (the work it paid for was not done here). */
  give(clientKey: string, cost: number): void {
    const b = this.#map.get(clientKey);
    if (b === undefined || b.budget.unlimited) return;
    b.tokens = Math.min(b.budget.max, b.tokens + cost);
    b.pending -= cost;
    if (!b.watched && this.onActive !== null) {
      b.watched = true;
      this.onActive(b);
    }
  }

  /** Whole tokens a client holds now (a client without a bucket holds a full one). */
  remaining(clientKey: string, now: number): number {
    const b = this.#map.get(clientKey);
    if (b === undefined) return this.#budgetOf(clientKey).max;
    const refilled = b.tokens + (now - b.at) * b.rate;
    return Math.max(0, Math.floor(refilled > b.budget.max ? b.budget.max : refilled));
  }

  #create(clientKey: string, now: number): Bucket {
    if (this.#map.size >= this.#maxBuckets) this.#evict(now);
    const b = new Bucket(clientKey, this.#budgetOf(clientKey), now);
    this.#map.set(clientKey, b);
    return b;
  }

  /** Drops up to a few idle buckets among the oldest, then the oldest if still at the bound. */
  #evict(now: number): void {
    let scanned = 0;
    for (const [key, b] of this.#map) {
      if (scanned++ >= SCAN_ON_INSERT) break;
      if (b.pending === 0 && !b.watched && b.tokens + (now - b.at) * b.rate >= b.budget.max) this.#map.delete(key);
    }
    if (this.#map.size >= this.#maxBuckets) {
      const oldest = this.#map.keys().next();
      if (oldest.done !== true) this.#map.delete(oldest.value);
    }
  }
}
