/**
 * The one guard of head answers (the endpoint whose module `reportsHead`:
 * block/max). It never goes backwards for clients, whatever the source of the
 * answer (memory, a Redis hit, a fleet follower's fill, a fresh fetch):
 *
 * - at the upstream boundary (`accept`): an answer below the highest served,
 *   or a head the tracker would not believe, is refused (retried elsewhere);
 * - on every answer served (`check`): a lower entry is replaced by the highest
 *   one served.
 *
 * Following every upstream down (tracker `rebase`) is the one way the floor
 * is lowered. The height of an entry is read from its bytes once (no JSON.parse).
 */
import type { CacheEntry } from '../cache/types.js';
import { member, numberAt, root } from '../transform/json-scan.js';
import type { ChainTracker } from '../chain/tracker.js';

/** `data.height` of a success body (`code` 0), truncated; null for anything else. */
function heightIn(body: Buffer): number | null {
  const top = root(body);
  if (top === null || body[top.start] !== 0x7b) return null;
  const code = member(body, top.start, 'code');
  if (code === null || numberAt(body, code) !== 0) return null;
  const data = member(body, top.start, 'data');
  if (data === null || body[data.start] !== 0x7b) return null;
  const h = member(body, data.start, 'height');
  const n = h === null ? null : numberAt(body, h);
  return n === null || !Number.isFinite(n) ? null : Math.trunc(n);
}

export class HeadGuard {
  readonly #tracker: ChainTracker;
  readonly #heights = new WeakMap<CacheEntry, number | null>();
  #best: CacheEntry | null = null;
  #bestHeight = -1;
  #rebase: { at: number; height: number } | null = null;

  /** `clock` is the one entries are stamped with (createdAt). */
  constructor(tracker: ChainTracker, clock: () => number) {
    this.#tracker = tracker;
    // After a rebase to height r, entries made before it and above r are served while they last but never become the
    // floor again.
    tracker.on('rebase', (height: number) => {
      this.#rebase = { at: clock(), height };
      if (this.#bestHeight > height) {
        this.#best = null;
        this.#bestHeight = -1;
      }
    });
  }

  /** Why an upstream's head `height` is refused, or null (accepted). */
  accept(height: number): string | null {
    if (height < this.#bestHeight) return `block/max ${height} is behind ${this.#bestHeight}, already served`;
    const head = this.#tracker.bestHead();
    if (head !== null && height > head && !this.#tracker.plausible(height))
      return `block/max ${height} implausibly far ahead of ${head}`;
    return null;
  }

  /** The entry to serve in place of `entry` (itself unless it is below the highest served). */
  check(entry: CacheEntry): CacheEntry {
    if (entry.negative || entry.status !== 200) return entry;
    let h = this.#heights.get(entry);
    if (h === undefined) {
      h = heightIn(entry.body);
      this.#heights.set(entry, h);
    }
    if (h === null) return entry;
    const r = this.#rebase;
    if (r !== null && h > r.height && entry.createdAt <= r.at) return this.#best ?? entry;
    if (h >= this.#bestHeight) {
      this.#best = entry;
      this.#bestHeight = h;
      return entry;
    }
    return this.#best ?? entry;
  }

  /** What to serve when no answer could be had (every fetched answer was refused), or null. */
  last(): CacheEntry | null {
    return this.#best;
  }
}
