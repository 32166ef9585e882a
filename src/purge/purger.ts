/**
 * An operator's purge, on this replica and across the fleet:
 *
 *  1. the mark is added (marks.ts): from now on every lookup, on either tier,
 *     judges the entries it names as purged;
 *  2. this replica's memory tier is walked once: what the target names is
 *     dropped (hard) or expired at the purge (soft), and counted: the count in
 *     the answer;
 *  3. with Redis: an exact key's entry is deleted there too (hard), the mark is
 *     added to the fleet's marks (fleet-marks.ts: replicas that start or
 *     reconnect later load them) and published on the bus; every other replica
 *     does 1 and 2 on receipt. Without Redis, the other workers of this
 *     machine (WORKERS) hear it from the cluster primary and do 1 and 2.
 *
 * What the purge could not reach is its `failure` (outcome.ts words it).
 */
import type { Logger } from 'pino';
import type { MemoryStore } from '../cache/memory-store.js';
import type { CacheEntry } from '../cache/types.js';
import type { Bus } from '../fleet/link.js';
import type { PurgeMark } from '../fleet/messages.js';
import type { EntryTags } from './entry-tags.js';
import type { FleetMarks } from './fleet-marks.js';
import { EVERYTHING, heardAt, type PurgeMarks, type PurgeMode } from './marks.js';
import type { PurgeMetrics, PurgeOrigin } from './metrics.js';
import { kindOf, type PurgeKind, type PurgeRequest } from './request.js';
import { softened } from './second-tier.js';
import { canonicalTarget } from './tag-vocabulary.js';

/**
 * Where a purge goes besides this process: nowhere (one process, no Redis),
 * this machine's other workers (WORKERS > 1, no Redis), or every replica (Redis).
 */
export type PurgeReach = 'process' | 'workers' | 'fleet';

export interface PurgeAnswer {
  kind: PurgeKind;
  target: string;
  mode: PurgeMode;
  /** The purge's time (ms since the epoch, this replica's clock). */
  at: number;
  /** memory + redis. */
  purged: number;
  /** Entries of this replica's memory tier the purge reached. */
  memory: number;
  /** Entries deleted from Redis (an exact key, hard). */
  redis: number;
  reach: PurgeReach;
  /** With Redis: whether the fleet's marks took it, and the bus; null: no Redis. */
  fleet: { stored: boolean; published: boolean } | null;
}

/** What a purge did not reach; null: everything it should. */
export type PurgeFailure = null | { stored: boolean; published: boolean } | 'workers';

export interface PurgeOutcome {
  answer: PurgeAnswer;
  failure: PurgeFailure;
}

export interface PurgeFleet {
  marks: FleetMarks;
  bus: Bus;
  /** The Redis key of a cache key in the shared tier. */
  redisKey(key: string): string;
}

export interface PurgerOptions {
  marks: PurgeMarks;
  tags: EntryTags;
  memory: MemoryStore;
  fleet: PurgeFleet | null;
  /** Without Redis, the other workers of this machine (WORKERS > 1); null: none. */
  peers: Bus | null;
  metrics: PurgeMetrics;
  clock: () => number;
  logger: Logger;
}

/** A mark from another replica, its target in this version's spelling. */
const heard = (mark: PurgeMark): PurgeMark => ({ ...mark, target: canonicalTarget(mark.target) });

interface Last {
  at: number;
  kind: PurgeKind;
  target: string;
  mode: PurgeMode;
  origin: PurgeOrigin;
  entries: number;
}

export class Purger {
  readonly #o: PurgerOptions;
  readonly #counts: Record<PurgeOrigin, number> = { here: 0, fleet: 0 };
  #last: Last | null = null;

  constructor(o: PurgerOptions) {
    this.#o = o;
    o.peers?.on('purge', (mark) => this.#apply(heardAt(heard(mark), o.clock()), 'fleet'));
    const fleet = o.fleet;
    if (fleet === null) return;
    fleet.bus.on('purge', (mark) => this.#apply(heardAt(heard(mark), o.clock()), 'fleet'));
    // At start and after every reconnect: marks this replica has not heard.
    fleet.bus.on('subscribed', () => void this.#load(fleet));
  }

  async purge(req: PurgeRequest): Promise<PurgeOutcome> {
    const mark: PurgeMark = { target: req.target, soft: req.soft, at: this.#o.clock() };
    const memory = this.#apply(mark, 'here');
    const fleet = this.#o.fleet;
    let redis = 0;
    let shared: PurgeAnswer['fleet'] = null;
    let reach: PurgeReach = 'process';
    let failure: PurgeFailure = null;
    if (fleet !== null) {
      const [deleted, stored, published] = await Promise.all([
        req.kind === 'key' && !req.soft ? fleet.marks.delete(fleet.redisKey(req.target)) : 0,
        fleet.marks.store(mark),
        fleet.bus.publish('purge', mark),
      ]);
      redis = deleted ?? 0;
      shared = { stored, published };
      reach = 'fleet';
      if (!stored || !published) failure = shared;
    } else if (this.#o.peers !== null) {
      reach = 'workers';
      if (!(await this.#o.peers.publish('purge', mark))) failure = 'workers';
    }
    const mode: PurgeMode = req.soft ? 'soft' : 'hard';
    const fields = { kind: req.kind, target: req.target, mode, memory, redis, reach, fleet: shared };
    if (failure === null) this.#o.logger.info(fields, 'purge');
    else this.#o.logger.warn(fields, 'purge applied here but not across the fleet');
    const answer: PurgeAnswer = {
      kind: req.kind,
      target: req.target,
      mode,
      at: mark.at,
      purged: memory + redis,
      memory,
      redis,
      reach,
      fleet: shared,
    };
    return { answer, failure };
  }

  status(): { marks: number; here: number; fleet: number; last: Last | null } {
    return { marks: this.#o.marks.size, ...this.#counts, last: this.#last };
  }

  /** Marks `mark` and walks the memory tier for what it names (whenever it was made); the entries reached. */
  #apply(mark: PurgeMark, origin: PurgeOrigin): number {
    const { marks, memory, tags, metrics } = this.#o;
    marks.add(mark);
    const t = mark.target;
    let n = 0;
    if (kindOf(t) === 'key') {
      const held = memory.peek(t)?.entry;
      if (held !== undefined) n += this.#reach(held, mark.soft, mark.at);
    } else {
      const named = t === EVERYTHING ? null : tags.matcher(t);
      for (const e of memory.held())
        if (e.composed === undefined && (named === null || named(e))) n += this.#reach(e, mark.soft, mark.at);
    }
    const kind = kindOf(t);
    const mode: PurgeMode = mark.soft ? 'soft' : 'hard';
    metrics.purged(kind, mode, origin, n);
    this.#counts[origin]++;
    this.#last = { at: mark.at, kind, target: t, mode, origin, entries: n };
    return n;
  }

  #reach(entry: CacheEntry, soft: boolean, at: number): number {
    if (!soft) void this.#o.memory.delete(entry.key);
    else this.#o.memory.replace(softened(entry, at));
    return 1;
  }

  /** Adds the fleet's marks, then judges what memory holds by them (by creation time). */
  async #load(fleet: PurgeFleet): Promise<void> {
    const list = await fleet.marks.load();
    if (list === undefined) {
      this.#o.logger.warn(
        'purge marks not loaded from Redis (until the next reconnect): ' +
          'purges made while this replica was away may be served',
      );
      return;
    }
    if (list.length === 0) return;
    const { marks, memory } = this.#o;
    marks.addAll(list.map(heard));
    for (const e of memory.held()) {
      const v = e.composed === undefined ? marks.verdict(e) : null;
      if (v !== null) this.#reach(e, v.mode === 'soft', v.at);
    }
    this.#o.logger.info({ marks: marks.size }, 'purge marks loaded from the fleet');
  }
}
