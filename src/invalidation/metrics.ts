/**
 * Precise invalidation metrics on the shared registry: blocks read and their
 * outcome, tags named per block, fallbacks to the head rule by reason, entries
 * found invalidated by a tag, the tag map's size.
 */
import type { Registry } from 'prom-client';
import { counter, gauge, histogram } from '../metrics/declare.js';
import { ENDPOINT_LABELS } from '../metrics/prometheus.js';
import type { Ended } from './earned.js';

export interface InvalidationMetrics {
  /** A block's touched set read whole, in seconds. */
  read(seconds: number): void;
  /** A block published, complete or not, with the tags it bumped. */
  block(complete: boolean, tags: number): void;
  fallback(reason: 'timeout' | 'error' | 'gap' | 'not-shared'): void;
  /** Pending transactions newly seen by the between-blocks poll. */
  pending(n: number): void;
  /** Hot invalidated entries fetched again ahead of clients. */
  refreshed(outcome: 'ok' | 'error', n: number): void;
  /** An entry found stale because a block named one of its tags (at lookup). */
  invalidated(endpoint: string): void;
  /** A refetch at the safety bound found content changed though no block named the entry. */
  unnamed(endpoint: string): void;
  /** An answer fetched again the same as the entry it replaced, by what ended that entry. */
  unchanged(endpoint: string, ended: Ended): void;
  /** A fact precise invalidation would have relied on was not trusted (the head rule applied instead), by reason. */
  guarded(reason: GuardReason): void;
  /** The reorg window read: blocks below the head it reaches, and whether its bound cut it short of a final block. */
  window(depth: number, cut: boolean): void;
  snapshot(): InvalidationSnapshot;
}

/**
 * Why a fact was not trusted: a block's pages disagreed with each other or with its record
 * (cross-check), an answer came from an upstream behind the best head (behind-upstream), a
 * client asked about a height above the trusted head (future-height), a non-final height's
 * hash changed (reorg), an entry predates what this replica or the fleet record covers
 * (joined-late), the pending pool could not be read (pool-unknown).
 */
export const GUARD_REASONS = [
  'cross-check',
  'behind-upstream',
  'future-height',
  'reorg',
  'joined-late',
  'pool-unknown',
] as const;
export type GuardReason = (typeof GUARD_REASONS)[number];

interface InvalidationSnapshot {
  /** Published here, read here or received. */
  blocks: number;
  /** Read whole by this replica. */
  readHere: number;
  pendingSeen: number;
  refreshedAhead: number;
  fallbacks: number;
  tagsBumped: number;
  entriesInvalidated: number;
  unnamedChanges: number;
  /** Blocks below the head the last reorg window reached. */
  reorgWindow: number;
  /** Windows cut by their bound before a final block. */
  windowCuts: number;
  /** Answers fetched again unchanged, by endpoint and what ended the entry they replaced. */
  unchangedRefetches: Record<string, Partial<Record<Ended, number>>>;
  guarded: Record<GuardReason, number>;
}

export function registerInvalidationMetrics(
  registry: Registry,
  tagMap: () => { tags: number; bytes: number },
): InvalidationMetrics {
  const blocks = counter(registry, 'invalidation_blocks_total');
  const fallbacks = counter(registry, 'invalidation_fallbacks_total');
  const tags = histogram(registry, 'invalidation_tags_per_block');
  const entries = counter(registry, 'invalidation_entries_total');
  // Every endpoint's series from the start: a dashboard shows a zero, not "no data".
  const unnamed = counter(registry, 'invalidation_unnamed_changes_total', {
    start: ENDPOINT_LABELS.map((endpoint) => ({ endpoint })),
  });
  const guarded = counter(registry, 'invalidation_guarded_total', {
    start: GUARD_REASONS.map((reason) => ({ reason })),
  });
  const pendingSeen = counter(registry, 'invalidation_pending_seen_total');
  const refreshed = counter(registry, 'invalidation_refresh_ahead_total');
  const readSeconds = histogram(registry, 'invalidation_read_seconds');
  gauge(registry, 'invalidation_tags', (g) => g.set(tagMap().tags));
  gauge(registry, 'invalidation_tag_bytes', (g) => g.set(tagMap().bytes));
  const unchangedRefetches = counter(registry, 'invalidation_unchanged_refetches_total');
  const windowBlocks = gauge(registry, 'invalidation_reorg_window_blocks');
  const windowCuts = counter(registry, 'invalidation_reorg_window_cut_total');
  const snap: InvalidationSnapshot = {
    blocks: 0,
    readHere: 0,
    pendingSeen: 0,
    refreshedAhead: 0,
    fallbacks: 0,
    tagsBumped: 0,
    entriesInvalidated: 0,
    unnamedChanges: 0,
    reorgWindow: 0,
    windowCuts: 0,
    unchangedRefetches: {},
    guarded: Object.fromEntries(GUARD_REASONS.map((r) => [r, 0])) as Record<GuardReason, number>,
  };
  return {
    read(s) {
      snap.readHere++;
      readSeconds.observe(s);
    },
    block(complete, n) {
      snap.blocks++;
      snap.tagsBumped += n;
      blocks.inc({ outcome: complete ? 'complete' : 'incomplete' });
      if (complete) tags.observe(n);
    },
    fallback(reason) {
      snap.fallbacks++;
      fallbacks.inc({ reason });
    },
    pending(n) {
      snap.pendingSeen += n;
      pendingSeen.inc(n);
    },
    refreshed(outcome, n) {
      snap.refreshedAhead += n;
      refreshed.inc({ outcome }, n);
    },
    invalidated(endpoint) {
      snap.entriesInvalidated++;
      entries.inc({ endpoint });
    },
    unnamed(endpoint) {
      snap.unnamedChanges++;
      unnamed.inc({ endpoint });
    },
    guarded(reason) {
      snap.guarded[reason]++;
      guarded.inc({ reason });
    },
    unchanged(endpoint, ended) {
      const by = (snap.unchangedRefetches[endpoint] ??= {});
      by[ended] = (by[ended] ?? 0) + 1;
      unchangedRefetches.inc({ endpoint, ended });
    },
    window(depth, cut) {
      snap.reorgWindow = depth;
      windowBlocks.set(depth);
      if (!cut) return;
      snap.windowCuts++;
      windowCuts.inc();
    },
    snapshot: () => ({
      ...snap,
      guarded: { ...snap.guarded },
      unchangedRefetches: Object.fromEntries(Object.entries(snap.unchangedRefetches).map(([k, v]) => [k, { ...v }])),
    }),
  };
}
