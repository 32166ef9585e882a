/**
 * The pending transactions the block reader has seen in the pool and not
 * seen leave it, on every replica: added by the pool's new entries
 * (`pending`, read here or heard from the fleet), removed by the block each
 * left with (a set's `left`). A pending transaction's answer is kept by its
 * own tag only while it is here: one that entered and left the pool between
 * two reads would never be told.
 */
import type { PendingTouched, TouchedListener, TouchedSet } from '../chain/touched.js';

/** Hashes kept at most (the oldest forgotten first: then kept by the endpoint's own rule). */
const MAX_POOL = 65_536;

export class PoolView implements TouchedListener {
  readonly #hashes = new Set<string>();

  has(hash: string): boolean {
    return this.#hashes.has(hash.toLowerCase());
  }

  pending(set: PendingTouched): void {
    for (const h of set.hashes) {
      this.#hashes.add(h.toLowerCase());
      if (this.#hashes.size > MAX_POOL) this.#hashes.delete(this.#hashes.values().next().value as string);
    }
  }

  block(set: TouchedSet): void {
    if (!set.complete) return;
    // A set that does not say which left: none can be vouched for any more.
    if (set.left === undefined) this.#hashes.clear();
    else for (const h of set.left) this.#hashes.delete(h);
  }

  rebase(): void {
    this.#hashes.clear();
  }
}
