/**
 * Precise invalidation metrics on the shared registry: blocks read and their
 * outcome, tags named per block, fallbacks to the head rule by reason, entries
 * found invalidated by a tag, the tag map's size.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { ENDPOINT_LABELS, METRIC_PREFIX } from '../metrics/prometheus.js';
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
  const blocks = new Counter({
    name: `${METRIC_PREFIX}invalidation_blocks_total`,
    help:
      'Touched sets published (read here or received from the fleet), by ' +
      'outcome: complete, or incomplete (head rule for that block).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const fallbacks = new Counter({
    name: `${METRIC_PREFIX}invalidation_fallbacks_total`,
    help:
      'Blocks that fell back to the head rule, by reason: timeout, error (upstream failure, partial ' +
      'pages), gap (too far behind after an outage), not-shared (the fleet reader did not share it in time).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const tags = new Histogram({
    name: `${METRIC_PREFIX}invalidation_tags_per_block`,
    help: 'Tags a complete block invalidated (addresses, contracts, tokens).',
    buckets: [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
    registers: [registry],
  });
  const entries = new Counter({
    name: `${METRIC_PREFIX}invalidation_entries_total`,
    help: 'Cache entries found invalidated by a touched set at lookup, by endpoint.',
    labelNames: ['endpoint'] as const,
    registers: [registry],
  });
  const unnamed = new Counter({
    name: `${METRIC_PREFIX}invalidation_unnamed_changes_total`,
    help:
      'Refetches at the safety bound whose content had changed though no block named the entry (a change the API ' +
      'cannot show, such as an internal transfer), by endpoint. Each resets that key to its endpoint bound.',
    labelNames: ['endpoint'] as const,
    registers: [registry],
  });
  // Every endpoint's series from the start: a dashboard shows a zero, not "no data".
  for (const endpoint of ENDPOINT_LABELS) unnamed.inc({ endpoint }, 0);
  const guarded = new Counter({
    name: `${METRIC_PREFIX}invalidation_guarded_total`,
    help:
      "Facts precise invalidation did not trust, so the head rule or the entry's own TTL applied, by " +
      "reason: cross-check (a block's pages disagreed with each other or with its record), behind-upstream " +
      '(an answer from an upstream behind the best head), future-height (an answer about a height above the ' +
      "trusted head), reorg (a non-final height's hash changed), joined-late (an entry older than what this " +
      'replica or the fleet record covers), pool-unknown (the pending pool could not be read).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const reason of GUARD_REASONS) guarded.inc({ reason }, 0);
  const pendingSeen = new Counter({
    name: `${METRIC_PREFIX}invalidation_pending_seen_total`,
    help: 'Pending transactions newly seen by the poll between blocks (published to the touched-set subscribers).',
    registers: [registry],
  });
  const refreshed = new Counter({
    name: `${METRIC_PREFIX}invalidation_refresh_ahead_total`,
    help: 'Hot entries invalidated by a block and fetched again before clients asked, by outcome (ok, error).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const readSeconds = new Histogram({
    name: `${METRIC_PREFIX}invalidation_read_seconds`,
    help: "Time to read a block's touched set whole.",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  new Gauge({
    name: `${METRIC_PREFIX}invalidation_tags`,
    help: 'Tags remembered with the height of the last block naming them.',
    registers: [registry],
    collect() {
      this.set(tagMap().tags);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}invalidation_tag_bytes`,
    help: 'Estimated bytes of the tag map (charged to CACHE_MAX_BYTES).',
    registers: [registry],
    collect() {
      this.set(tagMap().bytes);
    },
  });
  const unchangedRefetches = new Counter({
    name: `${METRIC_PREFIX}invalidation_unchanged_refetches_total`,
    help:
      'Answers fetched again the same as the entry they replaced, by endpoint and what ended that entry: named ' +
      "(a block named a tag, the fail-safe, its block's finality or a reorg), head (the head rule), bound " +
      "(a tag-kept entry's safety bound), ttl (the endpoint's own TTL), other (a purge, a refresh while fresh).",
    labelNames: ['endpoint', 'ended'] as const,
    registers: [registry],
  });
  const windowBlocks = new Gauge({
    name: `${METRIC_PREFIX}invalidation_reorg_window_blocks`,
    help: 'Blocks below the head the last reorg window reached (down to the newest final block the block list shows).',
    registers: [registry],
  });
  const windowCuts = new Counter({
    name: `${METRIC_PREFIX}invalidation_reorg_window_cut_total`,
    help:
      'Reorg windows cut by their bound (300 blocks) before a final block was listed: ' +
      'deeper non-final blocks are not watched for a new hash.',
    registers: [registry],
  });
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
