/**
 * Refresh-ahead of hot tag-kept entries: an entry clients keep asking for
 * after blocks invalidate it (counted when a lookup finds it invalidated, off
 * the hit path) is fetched again as soon as the next block naming one of its
 * tags is published, before clients ask. At most `maxKeys` per block, the
 * hottest first, each through the resolver's single flight: never a stampede.
 * Scores halve on every block, so keys clients stop asking for are forgotten.
 */
import type { Logger } from 'pino';
import type { Catalogue } from '../catalogue/index.js';
import type { CanonicalRequest, EndpointName } from '../catalogue/types.js';
import type { ParamLimits } from '../endpoints/types.js';
import { canonicalize } from '../catalogue/canonicalize.js';
import type { CacheEntry } from '../cache/types.js';
import { DEPLOYED, tagOfAddress, tagOfToken } from './tags.js';
import type { TouchedListener, TouchedSet } from '../chain/touched.js';

/** Bound on distinct keys tracked. */
const MAX_TRACKED = 4096;
const FORGET_BELOW = 0.25;

interface Scored {
  tags: readonly string[];
  score: number;
}

export interface HotRefreshDeps {
  /** In a fleet only the leader refreshes (the others find its entries in the Redis tier); null: no fleet. */
  acting: (() => boolean) | null;
  revalidate(req: CanonicalRequest): Promise<unknown>;
  catalogue: Catalogue;
  limits: ParamLimits;
  maxKeys: number;
  refreshed(outcome: 'ok' | 'error', n: number): void;
  logger: Logger;
}

export class HotRefresh implements TouchedListener {
  readonly #scores = new Map<string, Scored>();
  #d: HotRefreshDeps | null = null;

  /** Refreshing starts once the resolver exists. */
  attach(deps: HotRefreshDeps): void {
    this.#d = deps;
  }

  /** A lookup found `entry` invalidated by a block. */
  readonly invalidated = (entry: CacheEntry): void => {
    // A composed page is recomposed on request (the home page by its own refresh target).
    if (entry.composed !== undefined) return;
    const tags = entry.deps?.tags;
    if (tags === undefined || tags.length === 0) return;
    const s = this.#scores.get(entry.key);
    if (s !== undefined) s.score++;
    else if (this.#scores.size < MAX_TRACKED) this.#scores.set(entry.key, { tags, score: 1 });
  };

  block(set: TouchedSet): void {
    const d = this.#d;
    if (d === null || d.maxKeys <= 0 || !set.complete || d.acting?.() === false) return;
    const named = new Set<string>([
      ...set.addresses.map(tagOfAddress),
      ...set.contracts.map(tagOfAddress),
      ...set.tokens.map(tagOfToken),
    ]);
    // Pending pages are hot: the head's refresh-ahead fetches them on every block already.
    if (set.deployed.length > 0) named.add(DEPLOYED);
    const due = [...this.#scores]
      .filter(([, s]) => s.tags.some((t) => named.has(t)))
      .sort((a, b) => b[1].score - a[1].score)
      .slice(0, d.maxKeys);
    for (const [key, s] of this.#scores) {
      s.score /= 2;
      if (s.score < FORGET_BELOW) this.#scores.delete(key);
    }
    for (const [key] of due) void this.#refresh(d, key);
  }

  async #refresh(d: HotRefreshDeps, key: string): Promise<void> {
    try {
      const q = key.indexOf('?');
      const name = (q < 0 ? key : key.slice(0, q)) as EndpointName;
      await d.revalidate(canonicalize(d.catalogue.get(name), q < 0 ? '' : key.slice(q + 1), d.limits));
      d.refreshed('ok', 1);
    } catch (err) {
      d.refreshed('error', 1);
      d.logger.warn(
        { key, err: err instanceof Error ? err.message : String(err) },
        'refresh-ahead of an invalidated entry failed',
      );
    }
  }

  get size(): number {
    return this.#scores.size;
  }
}
