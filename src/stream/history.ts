/**
 * The last N events of one stream, in height order, for Last-Event-ID
 * resumes; and the recent rebases, so a client resuming from a height that was
 * dropped is told.
 */

export interface StreamEvent {
  height: number;
  /** The whole SSE frame, made once. */
  frame: Buffer;
  /** A `gap` or `rebase` event (about heights, not one): never handed to a new subscriber as the newest. */
  marker?: boolean;
}

import { RebaseLog } from './rebases.js';

export class EventHistory {
  readonly #max: number;
  #events: StreamEvent[] = [];
  /** Recent rebases (rebaseFor). */
  readonly rebases = new RebaseLog();

  constructor(max: number) {
    this.#max = max;
  }

  push(e: StreamEvent): void {
    this.#events.push(e);
    // Trim in batches so a push is O(1) amortized.
    if (this.#events.length >= this.#max * 2) this.#events = this.#events.slice(-this.#max);
  }

  #kept(): StreamEvent[] {
    return this.#events.length > this.#max ? this.#events.slice(-this.#max) : this.#events;
  }

  /** Index of the first event above `height` in `list`. */
  static #above(list: readonly StreamEvent[], height: number): number {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid]!.height <= height) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Kept events after `height`, oldest first. */
  after(height: number): StreamEvent[] {
    const kept = this.#kept();
    return kept.slice(EventHistory.#above(kept, height));
  }

  /** The newest entry, marker or not (what a stream stands at). */
  latest(): StreamEvent | undefined {
    return this.#events[this.#events.length - 1];
  }

  /** The newest event that is not a marker. */
  newest(): StreamEvent | undefined {
    for (let i = this.#events.length - 1; i >= 0; i--) if (this.#events[i]!.marker !== true) return this.#events[i];
    return undefined;
  }

  oldest(): StreamEvent | undefined {
    const kept = this.#kept();
    return kept[0];
  }

  /** Drops every event above `height` (no longer believed) and remembers the rebase. */
  rebase(height: number, from: number): void {
    this.#events.length = EventHistory.#above(this.#events, height);
    this.rebases.push(height, from);
  }
}
