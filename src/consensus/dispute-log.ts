/**
 * The last disputes, newest last, at most `capacity` of them (the oldest is
 * dropped): what /status shows an operator. Hashes are the content hashes of
 * the versions (content-hash.ts), each with the upstreams that answered it.
 */
import type { Version } from './tally.js';

export interface Dispute {
  /** ms epoch. */
  at: number;
  /** Cache key of the answer voted on. */
  key: string;
  endpoint: string;
  /** 'majority': the majority's version was served and kept; 'unresolved': served short-lived. */
  outcome: 'majority' | 'unresolved';
  versions: Version[];
}

export class DisputeLog {
  readonly #capacity: number;
  readonly #items: Dispute[] = [];
  #total = 0;

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  append(d: Dispute): void {
    this.#total++;
    this.#items.push(d);
    if (this.#items.length > this.#capacity) this.#items.shift();
  }

  /** Disputes since start (the log keeps only the last ones). */
  get total(): number {
    return this.#total;
  }

  recent(): readonly Dispute[] {
    return this.#items;
  }
}
