/**
 * Reads the touched set of every block the proxy believes, in order, gaps
 * after an outage included (at most MAX_GAP blocks back; older ones fall
 * back), once per block fleet-wide: with a fleet, the replica that takes the
 * block's lease reads it and shares it on the bus; the others wait for it
 * and fall back to the head rule when it does not come in time. A block that
 * cannot be read whole within INVALIDATION_READ_TIMEOUT_MS, or whose reading
 * no upstream confirms (cross-check), is published incomplete (the head rule
 * for that block).
 *
 * The replica that reads a block reads the reorg window once per drain
 * (reorg-window.ts: the newest blocks' hashes down to the final height; the
 * hashes the blocks read are checked against). Every height read, whole or
 * not, keeps the hash it was known by; a non-final height whose hash changed
 * in the window is a reorg: what was fetched about it is stale at once, and
 * it is read again and published anew (bus, streams), and again while the
 * window read after it shows another hash.
 */
import type { Logger } from 'pino';
import type { BlockReading } from './read-block.js';
import { CrossCheckFailed } from './verify-block.js';
import type { TagClock } from './clock.js';
import type { InvalidationMetrics } from './metrics.js';
import type { PendingTouched, TouchedSet, TouchedSets } from '../chain/touched.js';
import type { PoolState } from '../fleet/messages.js';
import { changedHashes, type RecentBlocks } from './reorg-window.js';

/** The fleet's division of the pending-pool poll (src/fleet/duty.ts). */
export interface PollDuty {
  /** This replica polls now (the fleet's leader, or a follower that has not heard it). */
  acting(): boolean;
  /** What a poll found, for the followers. */
  sharePool(state: PoolState): void;
}

/** Blocks behind the head read after an outage; older ones are published incomplete. */
const MAX_GAP = 64;
/** Windows read per drain while re-read blocks show yet another hash. */
const REORG_ROUNDS = 3;

export interface HeadSource {
  on(event: 'head', listener: (height: number) => void): unknown;
  on(event: 'rebase', listener: (height: number) => void): unknown;
  off(event: 'head' | 'rebase', listener: (height: number) => void): unknown;
  bestHead(): number | null;
  finalHeight(): number | null;
}

export interface BlockReaderDeps {
  reading: Pick<BlockReading, 'read' | 'recent' | 'pending' | 'heard' | 'heardPool' | 'blockPublished'>;
  touched: TouchedSets;
  clock: TagClock;
  heads: HeadSource;
  /** Resolves true when this replica does `job` (the fleet lease: `block:N`, `recent:N`); null: always (no fleet). */
  lead: ((job: string) => Promise<boolean>) | null;
  /** Shares a read set with the other replicas (the bus); null: no fleet. */
  share: ((set: TouchedSet, pending: PendingTouched) => void) | null;
  timeoutMs: number;
  /** Between blocks, the pending pool is polled this often and its new entries published (0: only with each block). */
  pendingPollMs: number;
  /** Only the fleet's leader polls (the others apply its polls); null: no fleet, this replica polls. */
  duty: PollDuty | null;
  metrics: InvalidationMetrics;
  logger: Logger;
}

/** A block not read whole; `hash`: the one it is known by ('' when none is). */
const incomplete = (height: number, hash = ''): TouchedSet => ({
  height,
  blockHash: hash,
  addresses: [],
  contracts: [],
  deployed: [],
  day: null,
  tokens: [],
  complete: false,
});

export class BlockReader {
  readonly #d: BlockReaderDeps;
  readonly #waiters = new Map<number, () => void>();
  readonly #unsubscribe: () => void;
  #target = -1;
  #running: Promise<void> | null = null;
  #closed = false;
  /** The previous poll saw the pool change. */
  #settling = false;
  #poll: ReturnType<typeof setTimeout> | null = null;
  /**
   * The newest blocks' hashes, read once per drain by the first
   * block this replica reads in it (null: not read in this drain).
   */
  #recent: Promise<RecentBlocks | null> | null = null;

  constructor(deps: BlockReaderDeps) {
    this.#d = deps;
    this.#unsubscribe = deps.touched.subscribe({
      block: (s) => {
        deps.reading.blockPublished(s);
        this.#waiters.get(s.height)?.();
      },
      pending: (p) => deps.reading.heard(p),
    });
    deps.heads.on('head', this.#onHead);
    deps.heads.on('rebase', this.#onRebase);
    const head = deps.heads.bestHead();
    if (head !== null) this.#onHead(head);
    this.#schedulePoll();
  }

  /** The next poll, an interval after the pool was last read (by a poll or with a block). */
  #schedulePoll(): void {
    if (this.#d.pendingPollMs <= 0 || this.#closed) return;
    if (this.#poll !== null) clearTimeout(this.#poll);
    this.#poll = setTimeout(() => void this.#pollPending().finally(() => this.#schedulePoll()), this.#d.pendingPollMs);
    this.#poll.unref();
  }

  /**
   * Skipped while a block is being read (its read includes the pool). A pool
   * that changed stales what lists it, and so does the poll after it (an
   * answer older than the change may have been stored after the change was seen).
   */
  async #pollPending(): Promise<void> {
    if (this.#running !== null || this.#closed || this.#d.duty?.acting() === false) return;
    try {
      const { pending, changed, pool } = await this.#d.reading.pending(AbortSignal.timeout(this.#d.timeoutMs));
      if (this.#closed) return;
      const stale = changed || this.#settling;
      this.#settling = changed;
      this.#d.duty?.sharePool({ known: true, stale, pending, pool });
      this.#d.clock.poolKnown();
      if (stale) this.#d.clock.poolChanged();
      if (pending.hashes.length === 0) return;
      this.#d.metrics.pending(pending.hashes.length);
      this.#d.touched.publishPending(pending);
    } catch {
      // Until a poll reads it, what depends on the pool keeps its own TTL (the next poll or block tries again).
      if (this.#closed) return;
      this.#d.duty?.sharePool({ known: false });
      this.#d.clock.poolUnknown();
      this.#d.metrics.guarded('pool-unknown');
    }
  }

  readonly #onHead = (height: number): void => {
    if (this.#closed) return;
    if (this.#target < 0) this.#d.clock.start(height);
    this.#target = Math.max(this.#target, height);
    this.#kick();
  };

  /** Drains to the target; a head heard while the drain was finishing starts it again. */
  #kick(): void {
    this.#running ??= this.#drain().finally(() => {
      this.#running = null;
      if (!this.#closed && this.#d.clock.covered < this.#target) this.#kick();
    });
  }

  readonly #onRebase = (height: number): void => {
    this.#d.touched.publishRebase(height);
    this.#target = height;
    this.#recent = null;
  };

  /** The leader's list of the pool (a follower's: the transactions it need not look up when it reads the pool). */
  heardPool(hashes: readonly string[]): void {
    this.#d.reading.heardPool(hashes);
  }

  /** Settles once every block up to the newest head heard is published (tests). */
  async idle(): Promise<void> {
    while (this.#running !== null) await this.#running;
  }

  async #drain(): Promise<void> {
    this.#recent = null;
    while (!this.#closed) {
      const next = this.#d.clock.covered + 1;
      if (next > this.#target) return this.#reorgs();
      if (this.#target - next >= MAX_GAP) {
        this.#fallback(incomplete(next), 'gap');
        continue;
      }
      await this.#one(next);
    }
  }

  async #one(height: number): Promise<void> {
    if (this.#d.clock.has(height)) return;
    const lead = this.#d.lead === null ? true : await this.#d.lead(`block:${height}`);
    if (lead) return this.#read(height);
    if (await this.#wait(height)) return;
    this.#fallback(incomplete(height), 'not-shared');
  }

  async #read(height: number): Promise<void> {
    let listed: string | undefined;
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(new Error('touched set read timed out')), this.#d.timeoutMs);
    const started = performance.now();
    const aborted = new Promise<never>((_, reject) =>
      ac.signal.addEventListener('abort', () => reject(ac.signal.reason as Error), { once: true }),
    );
    try {
      // Read beside the block (not before it): the hash it shows is checked once both are in.
      this.#recent ??= this.#window(ac.signal);
      const known = this.#recent.then((r) => (listed = r?.hashes.get(height)));
      const { set, pending } = await Promise.race([this.#d.reading.read(height, ac.signal, known), aborted]);
      this.#d.metrics.read((performance.now() - started) / 1000);
      this.#d.touched.publishBlock(set);
      this.#d.touched.publishPending(pending);
      this.#d.share?.(set, pending);
      this.#schedulePoll();
    } catch (err) {
      this.#d.logger.warn(
        { height, err: err instanceof Error ? err.message : String(err) },
        'touched set not read: head rule for this block',
      );
      if (err instanceof CrossCheckFailed) this.#d.metrics.guarded('cross-check');
      // Known by the hash the window shows: a later change of it is a reorg.
      const set = incomplete(height, listed ?? '');
      this.#fallback(set, ac.signal.aborted ? 'timeout' : 'error');
      this.#d.share?.(set, { hashes: [], addresses: [], contracts: [] });
    } finally {
      clearTimeout(timer);
    }
  }

  /** The reorg window now (null: not read); its depth and a cut are counted. */
  #window(signal: AbortSignal): Promise<RecentBlocks | null> {
    return this.#d.reading.recent(signal).then(
      (r) => {
        const head = this.#d.heads.bestHead();
        this.#d.metrics.window(head === null || r.lowest === null ? 0 : head - r.lowest, r.cut);
        return r;
      },
      () => null,
    );
  }

  /**
   * Non-final blocks whose hash in this drain's window differs from the one
   * they are known by, oldest first: what was fetched about them is stale at
   * once, and they are read again (their sets published anew). The window is
   * then read again, and so are blocks replaced meanwhile.
   * Only the replica that read a block in this drain checks (the fleet's reader).
   */
  async #reorgs(): Promise<void> {
    for (let round = 0; round < REORG_ROUNDS && !this.#closed; round++) {
      const recent = this.#recent === null ? null : await this.#recent;
      if (recent === null) return;
      const final = this.#d.heads.finalHeight();
      // Non-final heights this replica never read (below its first block) are watched from the window's hashes.
      for (const [h, hash] of recent.hashes) if (final === null || h > final) this.#d.clock.watch(h, hash);
      const changed = changedHashes(recent.hashes, final, (h) => this.#d.clock.hashOf(h));
      if (changed.length === 0) return;
      for (const [height, hash] of changed) {
        if (this.#closed) return;
        this.#d.metrics.guarded('reorg');
        this.#d.logger.warn({ height, from: this.#d.clock.hashOf(height), to: hash }, 'block hash changed: read again');
        this.#d.clock.rewrite(height, hash);
        await this.#read(height);
      }
      this.#recent = this.#window(AbortSignal.timeout(this.#d.timeoutMs));
    }
  }

  #fallback(set: TouchedSet, reason: 'timeout' | 'error' | 'gap' | 'not-shared'): void {
    this.#d.metrics.fallback(reason);
    this.#d.touched.publishBlock(set);
  }

  /** True when another replica's set for `height` arrived within the read timeout. */
  #wait(height: number): Promise<boolean> {
    if (this.#d.clock.has(height)) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(height);
        resolve(ok);
      };
      const timer = setTimeout(() => done(false), this.#d.timeoutMs);
      this.#waiters.set(height, () => done(true));
    });
  }

  close(): void {
    this.#closed = true;
    if (this.#poll !== null) clearTimeout(this.#poll);
    this.#unsubscribe();
    this.#d.heads.off('head', this.#onHead);
    this.#d.heads.off('rebase', this.#onRebase);
    for (const w of [...this.#waiters.values()]) w();
  }
}
