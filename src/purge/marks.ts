/**
 * Purge marks: per target, when it was last purged, hard and soft; an entry
 * created at or before a mark of one of its targets is purged. Nothing is
 * scanned or indexed per entry: the marks are consulted where every entry is
 * judged (src/purge/judge.ts), and one comparison with the newest mark
 * settles every entry created since (and every entry while there is none).
 *
 * A target is a cache key (`tx/detail?hash=…`: never a `:`, values are
 * percent-encoded), a tag (tag-vocabulary.ts: `address:…`, `finality:…`, or a
 * bare word such as `head`, which no endpoint is named), or everything (held
 * as two times, not in the map).
 *
 * Bounded: a mark older than the longest life of an entry (`horizonMs`) can
 * purge nothing and is dropped; beyond `cap` marks the oldest are folded into
 * "everything created before T" (purging more, never less).
 */
import type { CacheEntry } from '../cache/types.js';
import type { PurgeMark } from '../fleet/messages.js';

export type PurgeMode = 'hard' | 'soft';

/**
 * A mark heard from another replica, at this replica's time of hearing: the
 * purge was made just before (the bus is immediate), and the purger's clock,
 * which may run ahead or behind this one's, is not trusted.
 */
export const heardAt = (mark: PurgeMark, now: number): PurgeMark => ({ ...mark, at: now });

/** How an entry is purged, and by the mark of which time. */
export interface PurgeVerdict {
  mode: PurgeMode;
  at: number;
}

/** The target of a purge of everything. */
export const EVERYTHING = '*';

interface Times {
  hard: number;
  soft: number;
}

export interface PurgeMarksOptions {
  cap: number;
  horizonMs: number;
  clock: () => number;
  /** The entry's tags (src/purge/entry-tags.ts). */
  tagsOf: (entry: CacheEntry) => readonly string[];
}

const NEVER = Number.NEGATIVE_INFINITY;

export class PurgeMarks {
  readonly #o: PurgeMarksOptions;
  /** Oldest first (a target purged again moves to the end). */
  readonly #marks = new Map<string, Times>();
  #all: Times = { hard: NEVER, soft: NEVER };
  #newest = NEVER;

  constructor(o: PurgeMarksOptions) {
    this.#o = o;
  }

  /** Entries created after this are never purged (-Infinity: no marks). */
  get newest(): number {
    return this.#newest;
  }

  /** Targets held, besides everything. */
  get size(): number {
    return this.#marks.size;
  }

  add(m: PurgeMark): void {
    this.#put(m);
    this.#trim();
  }

  /** Several marks, trimmed once. */
  addAll(list: readonly PurgeMark[]): void {
    for (const m of list) this.#put(m);
    this.#trim();
  }

  #put(m: PurgeMark): void {
    const times = m.target === EVERYTHING ? this.#all : (this.#marks.get(m.target) ?? { hard: NEVER, soft: NEVER });
    if (m.soft) times.soft = Math.max(times.soft, m.at);
    else times.hard = Math.max(times.hard, m.at);
    if (m.target !== EVERYTHING) {
      this.#marks.delete(m.target);
      this.#marks.set(m.target, times);
    }
    this.#newest = Math.max(this.#newest, m.at);
  }

  /** How `entry` is purged (null: it is not). */
  verdict(entry: CacheEntry): PurgeVerdict | null {
    const created = entry.createdAt;
    if (created > this.#newest) return null;
    let hard = this.#all.hard;
    let soft = this.#all.soft;
    if (this.#marks.size > 0) {
      const k = this.#marks.get(entry.key);
      if (k !== undefined) {
        hard = Math.max(hard, k.hard);
        soft = Math.max(soft, k.soft);
      }
      const tags = this.#o.tagsOf(entry);
      for (let i = 0; i < tags.length; i++) {
        const t = this.#marks.get(tags[i]!);
        if (t === undefined) continue;
        hard = Math.max(hard, t.hard);
        soft = Math.max(soft, t.soft);
      }
    }
    if (created <= hard) return { mode: 'hard', at: hard };
    // An entry already expired by the soft purge (or since) is left to its own timeline.
    if (created <= soft && entry.freshUntil > soft) return { mode: 'soft', at: soft };
    return null;
  }

  /**
   * Drops marks past the horizon from the oldest end (a mark out of order
   * waits for the ones before it; the cap bounds them all), then folds the
   * oldest beyond the cap into everything.
   */
  #trim(): void {
    const expired = this.#o.clock() - this.#o.horizonMs;
    if (this.#newest < expired) {
      this.#marks.clear();
      this.#all = { hard: NEVER, soft: NEVER };
      this.#newest = NEVER;
      return;
    }
    if (this.#all.hard < expired) this.#all.hard = NEVER;
    if (this.#all.soft < expired) this.#all.soft = NEVER;
    for (const [target, t] of this.#marks) {
      const past = Math.max(t.hard, t.soft) < expired;
      if (!past && this.#marks.size <= this.#o.cap) break;
      this.#marks.delete(target);
      if (past) continue;
      this.#all.hard = Math.max(this.#all.hard, t.hard);
      this.#all.soft = Math.max(this.#all.soft, t.soft);
    }
  }
}
