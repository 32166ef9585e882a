/**
 * Pool transactions whose parties were published (by this replica's reads or
 * another replica's, heard on the bus), so a reader that did not poll them
 * itself (a follower that takes the lease, a replica reading its first pool)
 * does not read their NRC20 recipients again: the publisher did, and every
 * replica applied the parties it published. What another reader published
 * since the last block set is carried into the next block set read here, as
 * that reader would have carried it (an answer older than the publication may
 * have been stored after it), in case it stopped before reading one.
 * A transaction that leaves the pool (a block's `left`, a read that no
 * longer finds it, a leader's list without it) is forgotten: back in the pool
 * after a reorg it is news again. Bounded: the newest HEARD_MAX hashes are kept.
 */
import type { PendingTouched, TouchedSet } from '../chain/touched.js';

const HEARD_MAX = 4096;

export class HeardPool {
  readonly #hashes = new Set<string>();
  #carry = { addresses: new Set<string>(), contracts: new Set<string>() };
  /** The last block set published: a block read's own pool news, published after it, are in it already. */
  #last: { addresses: ReadonlySet<string>; contracts: ReadonlySet<string> } = {
    addresses: new Set(),
    contracts: new Set(),
  };

  /** A publication; `own`: the pool as this reader last read it (its own news are carried by itself). */
  add(p: PendingTouched, own: ReadonlyMap<string, unknown> | null): void {
    this.known(p.hashes);
    if (p.hashes.every((h) => own?.has(h) === true)) return;
    for (const a of p.addresses) if (!this.#last.addresses.has(a)) this.#carry.addresses.add(a);
    for (const c of p.contracts) if (!this.#last.contracts.has(c)) this.#carry.contracts.add(c);
  }

  /** Transactions whose parties were published (news of them). */
  known(hashes: readonly string[]): void {
    for (const h of hashes) {
      const k = h.toLowerCase();
      this.#hashes.delete(k);
      this.#hashes.add(k);
    }
    while (this.#hashes.size > HEARD_MAX) this.#hashes.delete(this.#hashes.values().next().value!);
  }

  /** A leader's list of the pool now: what is not in it has left (its return would be news again). */
  pool(hashes: readonly string[]): void {
    this.#hashes.clear();
    this.known(hashes);
  }

  /** Transactions gone from the pool (mined, dropped): back in it, they are news again (a reorg, a resend). */
  forget(hashes: Iterable<string>): void {
    for (const h of hashes) this.#hashes.delete(h.toLowerCase());
  }

  has(hash: string): boolean {
    return this.#hashes.has(hash.toLowerCase());
  }

  /** What other readers published since the last block set. */
  carried(): { addresses: ReadonlySet<string>; contracts: ReadonlySet<string> } {
    return this.#carry;
  }

  /** A block set was published (read here or elsewhere): what came before it is in some block's set. */
  blockPublished(set: TouchedSet): void {
    // A block that does not say which transactions left may have taken any of them.
    if (!set.complete || set.left === undefined) this.#hashes.clear();
    else this.forget(set.left);
    this.#last = { addresses: new Set(set.addresses), contracts: new Set(set.contracts) };
    if (this.#carry.addresses.size === 0 && this.#carry.contracts.size === 0) return;
    this.#carry = { addresses: new Set<string>(), contracts: new Set<string>() };
  }
}
