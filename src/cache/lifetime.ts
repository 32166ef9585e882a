/**
 * The one lifetime of a cache entry. Its windows (absolute ms epochs)
 *
 *   createdAt ── freshUntil ── swrUntil ─────────── sieUntil
 *   |  fresh    |  stale        |  error-only        |  dead
 *
 * are laid out, promoted, renewed, stretched and cut here and nowhere else
 * (test/architecture/lifetime.unit.test.ts checks it): creation from the
 * classification's durations, promotion to the final TTL, renewal of the head
 * entry, the earned safety bound, a soft purge, a composed page's windows, and
 * the one test of final content. The rest of the proxy states decisions
 * (classification and policy durations, what keeps an answer: `Keeping`, what
 * limits a page: `PageLimit`) and this module turns them into windows.
 */
import type { Classification, EndpointPolicy } from '../endpoints/types.js';
import type { CacheEntry, EntryDeps } from './types.js';

export interface Windows {
  createdAt: number;
  freshUntil: number;
  swrUntil: number;
  sieUntil: number;
}

/** The durations a new entry is made with (from its classification). */
export interface Terms {
  ttlMs: number;
  swrMs: number;
  sieMs: number;
  negative: boolean;
}

const nonNeg = (ms: number): number => (Number.isFinite(ms) && ms > 0 ? ms : 0);

/**
 * Creation: freshUntil = createdAt + ttl; swrUntil = freshUntil + swr;
 * sieUntil = max(swrUntil, freshUntil + sie). A negative entry gets no stale
 * windows (swrUntil = sieUntil = freshUntil); negative or NaN durations count as 0.
 */
export function windowsOf(createdAt: number, t: Terms): Windows {
  const freshUntil = createdAt + nonNeg(t.ttlMs);
  const swrUntil = t.negative ? freshUntil : freshUntil + nonNeg(t.swrMs);
  const sieUntil = t.negative ? freshUntil : Math.max(swrUntil, freshUntil + nonNeg(t.sieMs));
  return { createdAt, freshUntil, swrUntil, sieUntil };
}

/** How long the entry is fresh from its creation (the earned bound lives here, so every tier carries it). */
export const boundOf = (e: Windows): number => e.freshUntil - e.createdAt;

/** `e` with every window moved by `shift` (stale windows keep their lengths). */
function shifted<E extends Windows>(e: E, shift: number, createdAt: number): E {
  return {
    ...e,
    createdAt,
    freshUntil: e.freshUntil + shift,
    swrUntil: e.swrUntil + shift,
    sieUntil: e.sieUntil + shift,
  };
}

/** Renewal: the windows start again from `now`, same lengths; null when `now` is not after its creation. */
export function renewed<E extends Windows>(e: E, now: number): E | null {
  const shift = now - e.createdAt;
  return shift > 0 ? shifted(e, shift, now) : null;
}

/** Stretching: fresh for `boundMs` from its creation, stale windows keeping their lengths; `e` when not longer. */
export function stretched<E extends Windows>(e: E, boundMs: number): E {
  const shift = e.createdAt + boundMs - e.freshUntil;
  return shift > 0 ? shifted(e, shift, e.createdAt) : e;
}

/**
 * Promotion. When `entry.finalAt` is set and the chain's final height has
 * reached it, the content can no longer change: a copy fresh for `finalTtlMs`
 * from `now` (its stale windows keep their lengths, and never shrink), no
 * longer head-dependent nor waiting for its tags, `finalAt` null (promoted
 * once). Body, ETag, stamps and createdAt unchanged. Null when nothing changes:
 * not awaiting finality, not final yet, a negative entry, or already fresh at least that long.
 */
export function promoteIfFinal(
  entry: CacheEntry,
  finalTtlMs: number,
  now: number,
  finalHeight: number | null,
): CacheEntry | null {
  if (entry.finalAt === null || entry.negative || finalHeight === null || finalHeight < entry.finalAt) return null;
  const freshUntil = now + nonNeg(finalTtlMs);
  if (entry.freshUntil >= freshUntil) return null;
  const swrUntil = Math.max(entry.swrUntil, freshUntil + (entry.swrUntil - entry.freshUntil));
  const sieUntil = Math.max(entry.sieUntil, swrUntil, freshUntil + (entry.sieUntil - entry.freshUntil));
  const { deps: _, ...rest } = entry;
  return { ...rest, freshUntil, swrUntil, sieUntil, headDependent: false, finalAt: null };
}

/**
 * A shared entry as its reader judges it, by its own clock: as old as the
 * larger of what that clock says and what the writer told (`toldAgeMs`: its
 * age when written, by the writer's own clock, plus the time since the write
 * as the reader measured it), its windows moved back to match (same lengths).
 * A writer whose clock runs ahead never makes its entry fresher than its
 * lifetime allows from when it was written; one behind only makes it older.
 */
export function seenByReader<E extends Windows>(e: E, toldAgeMs: number, now: number): E {
  const shift = now - e.createdAt - Math.max(0, toldAgeMs);
  return shift < 0 ? shifted(e, shift, e.createdAt + shift) : e;
}

/** A soft purge: expired at `at` (servable stale in its own windows), never promoted without a refetch. */
export function expiredAt(entry: CacheEntry, at: number): CacheEntry {
  return { ...entry, freshUntil: Math.min(entry.freshUntil, at), finalAt: null };
}

/** What the one "is final" test reads: a classification, or an entry through `termsOfEntry`. */
export interface FinalTerms {
  ttlMs: number;
  headDependent: boolean;
  /** The height whose finality it still awaits (null: none). */
  finalAt: number | null;
  negative: boolean;
}

/** An entry's terms: its bound, and the finality it awaits by promotion or by its tags' watch. */
export const termsOfEntry = (e: CacheEntry): FinalTerms => ({
  ttlMs: boundOf(e),
  headDependent: e.headDependent,
  finalAt: e.finalAt ?? e.deps?.watchFinal ?? null,
  negative: e.negative,
});

/**
 * The one test of final content: an endpoint whose content can become final
 * (`finalCapable`, a final TTL longer than its ordinary one), kept at least
 * that final TTL, not waiting for finality, not moving with the head, not an error.
 */
export function isFinalContent(t: FinalTerms, policy: EndpointPolicy, finalCapable: boolean): boolean {
  return (
    finalCapable &&
    policy.finalTtlMs > policy.ttlMs &&
    !t.negative &&
    !t.headDependent &&
    t.finalAt === null &&
    t.ttlMs >= policy.finalTtlMs
  );
}

/** What a refetch at a tag-kept key's bound says (src/invalidation/earned.ts). */
export type Evidence = 'same' | 'unnamed-change' | 'none';

/** The key's next bound; `base`: the endpoint's, `growth`: the largest multiple of it. */
export function nextBound(prev: number, base: number, growth: number, evidence: Evidence): number {
  const cap = base * growth;
  if (evidence === 'unnamed-change') return base;
  const wanted = evidence === 'same' ? prev * 2 : prev;
  return Math.max(base, Math.min(cap, wanted));
}

/** The earned bound: `after` (replacing `before`) fresh for the bound the evidence earned. */
export function earned(before: CacheEntry, after: CacheEntry, growth: number, evidence: Evidence): CacheEntry {
  return stretched(after, nextBound(boundOf(before), boundOf(after), growth, evidence));
}

/** What keeps a stored answer (the precise rule's decision). */
export type Keeping =
  /** The classification's own rule. */
  | { kind: 'own' }
  /** Stale with every new block (global lists and statistics). */
  | { kind: 'head' }
  /** Tags attached, its classification's timing (a finality watch while the final height is unknown). */
  | { kind: 'watch'; deps: EntryDeps }
  /** Fresh until a block names a tag, at most `boundMs`; downstream caches told at most the classification's TTL. */
  | { kind: 'tags'; deps: EntryDeps; boundMs: number };

export const OWN_RULE: Keeping = { kind: 'own' };

/** The classification and tags an answer is stored with under `k`. */
export function keptBy(cls: Classification, k: Keeping): { cls: Classification; deps: EntryDeps | undefined } {
  switch (k.kind) {
    case 'own':
      return { cls, deps: undefined };
    case 'head':
      return { cls: cls.headDependent ? cls : { ...cls, headDependent: true }, deps: undefined };
    case 'watch':
      return { cls, deps: k.deps };
    case 'tags':
      return {
        cls: { ...cls, headDependent: false, ttlMs: Math.max(cls.ttlMs, k.boundMs) },
        deps: { ...k.deps, clientMaxMs: cls.ttlMs },
      };
  }
}

/** A page past its freshness is not served, but kept this long after it, so recomposition finds the pages read. */
export const PAGE_KEPT_MS = 60_000;
/** Freshness of a page with a failed optional part. */
export const FAILED_PART_TTL_MS = 1000;
/** A page with a part being revalidated is kept (served STALE) until that part is fresh again, at most this long. */
const STALE_PAGE_MS = 250;

/** What limits a composed page's freshness: a fresh part (until it expires), a failed part, a part served stale. */
export type PageLimit = { kind: 'part'; until: number } | { kind: 'failed' } | { kind: 'stale' };

/**
 * A composed page's windows: fresh until its first limit (no limit: not fresh
 * at all), never served stale (a page past its freshness is composed again;
 * its parts have their own windows), kept PAGE_KEPT_MS after.
 */
export function pageWindows(now: number, limits: readonly PageLimit[]): Windows {
  let until = Number.POSITIVE_INFINITY;
  for (const l of limits)
    until = Math.min(
      until,
      l.kind === 'part' ? l.until : now + (l.kind === 'failed' ? FAILED_PART_TTL_MS : STALE_PAGE_MS),
    );
  const freshUntil = Number.isFinite(until) ? until : now;
  return { createdAt: now, freshUntil, swrUntil: freshUntil, sieUntil: freshUntil + PAGE_KEPT_MS };
}
