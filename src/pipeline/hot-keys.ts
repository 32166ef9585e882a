/**
 * Which head-dependent entries clients poll: the first pages of the endpoints
 * whose modules declare them hot (the head itself, the newest blocks and
 * transactions, the pending pool) or that move with every block (global
 * statistics and lists: chain/summary, tx/count/today, holders, …), at
 * whatever page sizes they use. Every lookup of such a key adds one to its score; every new head
 * halves the scores, so a key stays hot while clients keep asking for it and
 * is forgotten when they stop. The keys are few by construction (one per
 * endpoint and page size); the map is bounded anyway.
 */
import { dependsOnHead } from '../invalidation/tags.js';
import type { CanonicalRequest } from '../catalogue/types.js';

/** Scores below this after ageing are forgotten. */
const FORGET_BELOW = 0.25;
/** Bound on distinct keys tracked. */
const MAX_TRACKED = 1024;

/** The head itself, or the newest page of a list (or a statistic) that moves with the head. */
export function isHeadPage(req: CanonicalRequest): boolean {
  const m = req.endpoint.module;
  if (m === undefined || !(m.hot || dependsOnHead(m.dependsOn, req.params))) return false;
  const page = req.params.get('page');
  return (page === undefined || page === '1') && (m.about === null || !req.params.has(m.about));
}

interface Scored {
  req: CanonicalRequest;
  score: number;
}

export class HotKeys {
  readonly #scores = new Map<string, Scored>();

  /** Counts one lookup (cheap: a set lookup for every other key). */
  readonly seen = (req: CanonicalRequest): void => {
    if (!isHeadPage(req)) return;
    const s = this.#scores.get(req.key);
    if (s !== undefined) s.score++;
    else if (this.#scores.size < MAX_TRACKED) this.#scores.set(req.key, { req, score: 1 });
  };

  /** The `n` hottest requests, hottest first; then every score is halved (a new head began). */
  take(n: number): CanonicalRequest[] {
    const ranked = [...this.#scores.values()]
      .sort((a, b) => b.score - a.score)
      .slice(0, n)
      .map((s) => s.req);
    for (const [key, s] of this.#scores) {
      s.score /= 2;
      if (s.score < FORGET_BELOW) this.#scores.delete(key);
    }
    return ranked;
  }

  get size(): number {
    return this.#scores.size;
  }
}
