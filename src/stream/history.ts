/** The last N head events, in height order, for Last-Event-ID resumes. */

export interface HeadEvent {
  height: number;
  /** The whole SSE frame, made once. */
  frame: Buffer;
}

export class EventHistory {
  readonly #max: number;
  #events: HeadEvent[] = [];

  constructor(max: number) {
    this.#max = max;
  }

  push(e: HeadEvent): void {
    this.#events.push(e);
    // Trim in batches so a push is O(1) amortized.
    if (this.#events.length >= this.#max * 2) this.#events = this.#events.slice(-this.#max);
  }

  /**
   * Events after `height`, oldest first: what a client that saw `height` missed.
   * When `height` is older than the history, everything kept (the gap cannot be filled).
   */
  after(height: number): HeadEvent[] {
    const kept = this.#events.length > this.#max ? this.#events.slice(-this.#max) : this.#events;
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (kept[mid]!.height <= height) lo = mid + 1;
      else hi = mid;
    }
    return kept.slice(lo);
  }

  latest(): HeadEvent | undefined {
    return this.#events[this.#events.length - 1];
  }
}
