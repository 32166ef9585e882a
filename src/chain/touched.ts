/**
 * What each block changed: the addresses, contracts, deployments and tokens it names, read
 * once per block fleet-wide and published on every replica. Precise
 * invalidation and the activity stream both subscribe here; neither reads
 * blocks itself.
 */

/** The entities one block (or the pending pool's new entries) names. */
export interface TouchedSet {
  height: number;
  /** The block's hash as read; a new hash at the same height is published again. */
  blockHash: string;
  /** Senders, recipients, the miner (coinbase) and NRC20 transfer parties. */
  addresses: readonly string[];
  /** Contracts called or deployed, and token contracts transferred on. */
  contracts: readonly string[];
  /** Contracts the block deployed (also in `contracts`). */
  deployed: readonly string[];
  /** The block's UTC day (its timestamp in days since 1970); null: unknown (then every day watch is stale). */
  day: number | null;
  /** Token names whose contract the block names. */
  tokens: readonly string[];
  /**
   * Transactions that left the pending pool with this block (mined in it, or gone from the pool since the
   * previous read), lowercase; absent: not told (a replica on an older version), as if every one had.
   */
  left?: readonly string[];
  /**
   * False when the block could not be read whole in time: every entry that
   * depends on the head is then treated as changed (today's rule).
   */
  complete: boolean;
}

/** Transactions newly seen in the pending pool, and whom they name. */
export interface PendingTouched {
  hashes: readonly string[];
  addresses: readonly string[];
  contracts: readonly string[];
}

export interface TouchedListener {
  block(set: TouchedSet): void;
  /** Absent: the listener does not care about the pending pool. */
  pending?(set: PendingTouched): void;
  /** The proxy followed the chain down to `height`: sets above it are void. */
  rebase?(height: number): void;
}

/** The one place touched sets are published (by the reader or the bus) and heard. */
export class TouchedSets {
  readonly #listeners = new Set<TouchedListener>();

  /** Returns the unsubscribe function. */
  subscribe(listener: TouchedListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publishBlock(set: TouchedSet): void {
    for (const l of this.#listeners) l.block(set);
  }

  publishPending(set: PendingTouched): void {
    for (const l of this.#listeners) l.pending?.(set);
  }

  publishRebase(height: number): void {
    for (const l of this.#listeners) l.rebase?.(height);
  }
}
