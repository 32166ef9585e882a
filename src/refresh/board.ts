/**
 * The one score board of hot keys, fed by lookups, read by both refresh
 * triggers. Two kinds of keys, each a canonical request as the lookup made it:
 *
 * - head pages: the first pages of the endpoints whose modules declare them
 *   hot (the head itself, the newest blocks and transactions, the pending
 *   pool) or that move with every block (chain/summary, tx/count/today,
 *   holders, …), at whatever page sizes clients use. Every lookup adds one;
 *   every head round halves them.
 * - tag-kept entries a lookup found invalidated by a block: each such lookup
 *   adds one (off the hit path); every complete touched set halves them.
 *
 * A key stays hot while clients keep asking for it and is forgotten when they
 * stop. Head pages are few by construction (one per endpoint and page size);
 * both kinds are bounded anyway.
 */
import { dependsOnHead } from '../invalidation/tags.js';
import type { CanonicalRequest } from '../catalogue/types.js';
import type { CacheEntry } from '../cache/types.js';

/** Scores below this after ageing are forgotten. */
const FORGET_BELOW = 0.25;
/** Bounds on distinct keys tracked, per kind. */
const MAX_HEAD_PAGES = 1024;
const MAX_TAGGED = 4096;

/** The head itself, or the newest page of a list (or a statistic) that moves with the head. */
export function isHeadPage(req: CanonicalRequest): boolean {
  const m = req.endpoint.module;
  if (m === undefined || !(m.hot || dependsOnHead(m.dependsOn, req.params))) return false;
  const page = req.params.get('page');
  return (page === undefined || page === '1') && (m.about === null || !req.params.has(m.about));
}

interface Hot {
  req: CanonicalRequest;
  score: number;
  /** The tags a block must name to refresh it; null: a head page (refreshed on every head). */
  tags: readonly string[] | null;
}

export class HotBoard {
  readonly #keys = new Map<string, Hot>();
  #headPages = 0;
  #tagged = 0;
  /** The request of the lookup under way: the tag clock reports what it found invalidated synchronously within it. */
  #lookup: CanonicalRequest | null = null;

  /** Every lookup (cheap: a set lookup for every key but head pages). */
  readonly seen = (req: CanonicalRequest): void => {
    this.#lookup = req;
    if (isHeadPage(req)) this.#bump(req, null);
  };

  /**
   * A lookup found `entry` invalidated by a block: counted with that lookup's
   * request. Reports outside a lookup of the same key (a page engine's own
   * judgement, a read of the second tier after a wait) are not counted.
   */
  readonly invalidated = (entry: CacheEntry): void => {
    const req = this.#lookup;
    if (req === null || req.key !== entry.key) return;
    // A composed page is recomposed on request (the home page by its own refresh target).
    if (entry.composed !== undefined) return;
    const tags = entry.deps?.tags;
    // Head pages are refreshed on every head already (the pending pages among them).
    if (tags === undefined || tags.length === 0 || isHeadPage(req)) return;
    this.#bump(req, tags);
  };

  /** The `n` hottest head pages, hottest first; then their scores halve (a new head began). */
  headPages(n: number): CanonicalRequest[] {
    return this.#round((h) => h.tags === null, n);
  }

  /** The `n` hottest tag-kept entries with one of their tags `named` by a block; then every tag-kept score halves. */
  named(named: ReadonlySet<string>, n: number): CanonicalRequest[] {
    return this.#round(
      (h) => h.tags !== null && h.tags.some((t) => named.has(t)),
      n,
      (h) => h.tags !== null,
    );
  }

  get size(): number {
    return this.#keys.size;
  }

  #bump(req: CanonicalRequest, tags: readonly string[] | null): void {
    const h = this.#keys.get(req.key);
    if (h !== undefined) {
      h.score++;
      if (tags !== null) h.tags = tags;
      return;
    }
    if (tags === null ? this.#headPages >= MAX_HEAD_PAGES : this.#tagged >= MAX_TAGGED) return;
    this.#keys.set(req.key, { req, score: 1, tags });
    if (tags === null) this.#headPages++;
    else this.#tagged++;
  }

  /** The `n` hottest of `due`, hottest first; then the scores of `ageing` (default: `due`'s kind) halve. */
  #round(due: (h: Hot) => boolean, n: number, ageing: (h: Hot) => boolean = due): CanonicalRequest[] {
    const ranked =
      n <= 0
        ? []
        : [...this.#keys.values()]
            .filter(due)
            .sort((a, b) => b.score - a.score)
            .slice(0, n)
            .map((h) => h.req);
    for (const [key, h] of this.#keys) {
      if (!ageing(h)) continue;
      h.score /= 2;
      if (h.score >= FORGET_BELOW) continue;
      this.#keys.delete(key);
      if (h.tags === null) this.#headPages--;
      else this.#tagged--;
    }
    return ranked;
  }
}
