/**
 * The earned safety bound. A tag-kept entry stays fresh until a block names
 * one of its tags, at most its endpoint's bound (INVALIDATION_MAX_AGE_MS & co.)
 * for changes the API cannot show. Each refetch at that bound is evidence
 * about the key:
 *  - the same content: nothing changed unseen, so the key's next bound doubles,
 *    up to INVALIDATION_MAX_AGE_GROWTH times the endpoint's bound, for the
 *    endpoints whose every change a block names (the transaction lists);
 *    balances keep their bound, since a change the API cannot show (an
 *    internal transfer) would stay unseen as long as the grown bound;
 *  - changed content although no block named a tag: a change the API cannot
 *    show happened (an internal transfer, say), so the bound goes back to the
 *    endpoint's and the change is counted.
 * A refetch for any other reason (a block named a tag, the fail-safe, a
 * refresh ahead of expiry) says nothing unseen and keeps the key's bound.
 * The bound lives in the entry itself (freshUntil − createdAt), so the shared
 * tier carries it and nothing else grows with the keys; its arithmetic is the
 * lifetime module's (`nextBound`, `earned`); here: what the evidence is.
 */
import { sameContent } from '../cache/entry.js';
import { earned, type Evidence } from '../cache/lifetime.js';
import type { CacheEntry } from '../cache/types.js';
import type { CanonicalRequest } from '../catalogue/types.js';

/**
 * Pure: what replacing `before` with `after` at `now` says; `named`:
 * a tag of `before` was named (or the fail-safe judged it).
 */
export function evidenceOf(before: CacheEntry, after: CacheEntry, now: number, named: boolean): Evidence {
  if (before.deps === undefined || after.deps === undefined || named || now < before.freshUntil) return 'none';
  return sameContent(before, after) ? 'same' : 'unnamed-change';
}

/**
 * What ended the entry an unchanged answer replaced: a block named it (its tags, the fail-safe, its block's
 * finality or a reorg: `named`), the head moved (the head rule), its own time ran out (`bound` for a tag-kept
 * entry, `ttl` for the endpoint's own rule), or something else while it was fresh (a purge, a refresh).
 */
export type Ended = 'named' | 'head' | 'bound' | 'ttl' | 'other';

/** Pure: why `before`, fresh until `before.freshUntil`, was fetched again at `now`. */
export function endedBy(before: CacheEntry, now: number, named: boolean, headMoved: boolean): Ended {
  if (named) return 'named';
  if (headMoved) return 'head';
  if (now >= before.freshUntil) return before.deps === undefined ? 'ttl' : 'bound';
  return 'other';
}

export interface EarnedBoundsOptions {
  /** INVALIDATION_MAX_AGE_GROWTH: 1 keeps every bound at the endpoint's. */
  growth: number;
  /** A block named one of the entry's tags (or the fail-safe judged it), unreported. */
  named: (entry: CacheEntry) => boolean;
  clock: () => number;
  /** Content changed at the bound though no block named the entry. */
  onUnnamed: (endpoint: string) => void;
  /** The head moved past a head-dependent entry's. */
  headMoved: (entry: CacheEntry) => boolean;
  /** An answer the same as the entry it replaces: what ended that entry. */
  onUnchanged: (endpoint: string, ended: Ended) => void;
}

export class EarnedBounds {
  readonly #o: EarnedBoundsOptions;

  constructor(o: EarnedBoundsOptions) {
    this.#o = o;
  }

  /** The entry to store for `req` in place of `before` (the memory tier's, if any): `after`, its bound earned. */
  readonly settle = (req: CanonicalRequest, before: CacheEntry | undefined, after: CacheEntry): CacheEntry => {
    if (before === undefined) return after;
    const o = this.#o;
    const named = o.named(before);
    if (sameContent(before, after))
      o.onUnchanged(req.endpoint.name, endedBy(before, o.clock(), named, o.headMoved(before)));
    if (before.deps === undefined || after.deps === undefined) return after;
    const evidence = evidenceOf(before, after, o.clock(), named);
    if (evidence === 'unnamed-change') o.onUnnamed(req.endpoint.name);
    const grows = req.endpoint.module?.everyChangeNamed === true;
    return earned(before, after, grows ? o.growth : 1, evidence);
  };
}
