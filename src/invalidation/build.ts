/**
 * Precise invalidation, assembled once from the settings (INVALIDATION_MODE=precise):
 * the tag clock (judge of every tag-kept entry), the store-time rule, and the
 * block reader started once the resolver exists. Null in head mode.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Catalogue } from '../catalogue/index.js';
import type { CacheEntry } from '../cache/types.js';
import type { ParamLimits } from '../endpoints/types.js';
import type { ChainView } from '../chain/types.js';
import type { Config } from '../config/types.js';
import type { FleetLink } from '../fleet/link.js';
import { TagClock } from './clock.js';
import { registerInvalidationMetrics, type InvalidationMetrics } from './metrics.js';
import { OwnReads, type OwnReadsDeps } from './own-reads.js';
import { BlockReading } from './read-block.js';
import { BlockReader, type HeadSource } from './reader.js';
import type { FleetDuty } from '../fleet/duty.js';
import { PreciseRule } from './rule.js';
import { PoolView } from './pool-view.js';
import type { TouchedSets } from '../chain/touched.js';

/** Longest wait for Redis before reading blocks anyway (the lease then acts alone). */
const READY_WAIT_MS = 5000;

/** The tag map's share of CACHE_MAX_BYTES: a sixteenth, at most 32 MiB. */
export function tagBudget(cacheMaxBytes: number): number {
  return Math.min(Math.floor(cacheMaxBytes / 16), 32 * 1024 * 1024);
}

export interface Invalidation {
  clock: TagClock;
  rule: PreciseRule;
  metrics: InvalidationMetrics;
  /**
   * Starts reading blocks (once the resolver exists). `reads`: the block reader's own fetches around the client cache.
   */
  start(deps: {
    reads: OwnReadsDeps;
    catalogue: Catalogue;
    limits: ParamLimits;
    heads: HeadSource;
    fleet: FleetLink | null;
    duty: FleetDuty | null;
    logger: Logger;
  }): void;
  status(): Record<string, unknown>;
  /** Stops reading blocks; resolves once the block being read (if any) is published. */
  close(): Promise<void>;
}

export function buildInvalidation(
  config: Config,
  touched: TouchedSets,
  registry: Registry,
  clock: () => number,
  chain: ChainView,
  /** A lookup found this entry invalidated by a block (the refresh engine's score board); null: nobody counts. */
  invalidated: ((entry: CacheEntry) => void) | null,
): Invalidation | null {
  if (config.invalidation.mode !== 'precise') return null;
  let tags: TagClock | undefined;
  const counted = invalidated ?? ((): void => {});
  const metrics = registerInvalidationMetrics(registry, () => ({ tags: tags?.tags ?? 0, bytes: tags?.bytes ?? 0 }));
  tags = new TagClock({
    maxBytes: tagBudget(config.cacheMaxBytes),
    clock,
    onBlock: (o) => metrics.block(o.complete, o.tags),
    onStale: (e) => {
      metrics.invalidated(e.key.slice(0, e.key.indexOf('?') >>> 0));
      counted(e);
    },
    onGuarded: metrics.guarded,
  });
  const tagClock = tags;
  touched.subscribe(tagClock);
  const pool = new PoolView();
  touched.subscribe(pool);
  let reader: BlockReader | null = null;
  let closed = false;
  let unshare: (() => void) | null = null;
  let unready: (() => void) | null = null;
  let unrebase: (() => void) | null = null;
  return {
    clock: tagClock,
    rule: new PreciseRule(
      config.invalidation,
      chain,
      metrics.guarded,
      (h) => tagClock.hashOf(h),
      (hash) => pool.has(hash),
    ),
    metrics,
    start(d) {
      const fleet = d.fleet;
      if (fleet !== null) {
        const onTouched = (
          set: Parameters<TouchedSets['publishBlock']>[0],
          pending: Parameters<TouchedSets['publishPending']>[0],
        ) => {
          touched.publishBlock(set);
          touched.publishPending(pending);
        };
        fleet.bus.on('touched', onTouched);
        unshare = () => fleet.bus.off('touched', onTouched);
      }
      // A follower applies the leader's pending-pool polls as its own.
      d.duty?.onPool((state) => {
        if (!state.known) {
          tagClock.poolUnknown();
          metrics.guarded('pool-unknown');
          return;
        }
        tagClock.poolKnown();
        if (state.stale) tagClock.poolChanged();
        if (state.pool !== undefined) reader?.heardPool(state.pool);
        if (state.pending.hashes.length > 0) touched.publishPending(state.pending);
      });
      // The fleet's record of recent sets: what was fetched before this replica's first block is judged by it.
      const join = async (): Promise<void> => {
        const sets = fleet === null ? null : await fleet.record.read();
        if (sets !== null && !closed) tagClock.join(sets, d.heads.bestHead());
      };
      const begin = () => {
        if (closed) return;
        reader = new BlockReader({
          reading: new BlockReading(d.catalogue, d.limits, new OwnReads(d.reads), clock),
          touched,
          clock: tagClock,
          heads: d.heads,
          lead: fleet === null ? null : (job) => fleet.lease.acquire(`touched:${job}`),
          share:
            fleet === null
              ? null
              : (set, pending) => {
                  void fleet.bus.publish('touched', set, pending);
                  void fleet.record.add(set);
                },
          timeoutMs: config.invalidation.readTimeoutMs,
          pendingPollMs: config.invalidation.pendingPollMs,
          duty: d.duty,
          metrics,
          logger: d.logger,
        });
      };
      // The chain went back: the fleet record's sets above the new head are of blocks no longer believed.
      if (fleet?.record.forgetAbove !== undefined) {
        const forget = (height: number) => void fleet.record.forgetAbove?.(height);
        d.heads.on('rebase', forget);
        unrebase = () => d.heads.off('rebase', forget);
      }
      // With a fleet, reading starts once Redis answers (the lease and the bus need it; the first
      // blocks otherwise trip the Redis breaker), after the fleet's record is read.
      // Without one, at once (synchronously: the reader hears a new head before refresh-ahead does).
      if (fleet === null) begin();
      else {
        void fleet.ready(READY_WAIT_MS).then(join).then(begin);
        // Back after a gap: the record may now reach further back than this replica's own sets.
        unready = fleet.onReconnect(() => {
          if (reader !== null) void join();
        });
      }
    },
    status() {
      return {
        mode: 'precise',
        coveredHeight: tagClock.covered,
        judgedFrom: tagClock.judgedFrom,
        tags: tagClock.tags,
        tagBytes: tagClock.bytes,
        ...metrics.snapshot(),
      };
    },
    async close() {
      closed = true;
      reader?.close();
      unready?.();
      unrebase?.();
      // A block being read is finished and shared (its lease holds it from the others): left unread, every
      // replica would take the head rule for it, and the fleet record would lack it.
      await reader?.idle();
      unshare?.();
    },
  };
}
