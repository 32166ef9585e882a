/**
 * What all stream subscribers together may hold queued for their sockets
 * (STREAM_MAX_BUFFER_TOTAL_BYTES): each queued event is charged its frame's
 * bytes (shared by several subscribers or not) and QUEUED_EVENT_BYTES. Each
 * subscriber has its own cap too (STREAM_MAX_BUFFER_BYTES); this one keeps
 * MAX_STREAMS slow readers from holding MAX_STREAMS times that. When an event
 * does not fit, the subscribers holding the most go first (the slowest
 * readers), not one that is only briefly behind.
 */
export const QUEUED_EVENT_BYTES = 64;

/** A subscriber as the budget sees it. */
export interface Queued {
  /** Bytes it has queued. */
  readonly queuedBytes: number;
  /** Disconnects it as too slow; what it queued is given back at once. */
  drop(): void;
}

export class QueueBudget {
  readonly #max: number;
  readonly #queued: () => Iterable<Queued>;
  #used = 0;

  /** `queued`: every subscriber that may hold queued bytes. */
  constructor(maxBytes: number, queued: () => Iterable<Queued>) {
    this.#max = maxBytes;
    this.#queued = queued;
  }

  /** Bytes charged now. */
  get used(): number {
    return this.#used;
  }

  /**
   * Charges `n` bytes for `asker`, dropping the subscribers that hold more
   * than it does, largest first, until they fit; false (nothing charged)
   * when `asker` holds the most: it is the one to go.
   */
  take(n: number, asker: Queued): boolean {
    while (this.#used + n > this.#max) {
      let largest: Queued = asker;
      for (const q of this.#queued()) if (q.queuedBytes > largest.queuedBytes) largest = q;
      if (largest === asker) return false;
      largest.drop();
    }
    this.#used += n;
    return true;
  }

  give(n: number): void {
    this.#used -= n;
  }
}
