/**
 * From touched sets to activity events. Each block's set (published by the
 * block reader, or the fleet bus, into Stages.touched) is checked against the
 * watched entities; only a block that names one has its transactions read
 * (cached tx/list pages). Blocks are handled one at a time in arrival order;
 * a set for a height already seen with another hash, or below the newest
 * one, is a rebase first. A replaced block (a reorg) is sent again after the
 * rebase, and so are the blocks kept above it (their subscribers dropped them
 * with the rebase). A step running across a rebase publishes nothing.
 */
import type { Logger } from 'pino';
import type { ChainView } from '../../chain/types.js';
import { toProxyError } from '../../errors/catalog.js';
import type { PendingTouched, TouchedListener, TouchedSet } from '../../chain/touched.js';
import { rebaseFrame } from '../frames.js';
import type { ActivityChannel } from './channel.js';
import { blockRecord, type ActivityHistory, type TxRecord } from './history.js';
import { txsNaming, type TxReader } from './txs.js';

export interface ActivityFeedDeps {
  channel: ActivityChannel;
  history: ActivityHistory;
  chain: ChainView;
  reader: TxReader;
  clock: () => number;
  logger: Logger;
  /** A block's transactions could not be read (its event says `complete: false`). */
  readFailed(): void;
}

export class ActivityFeed implements TouchedListener {
  readonly #d: ActivityFeedDeps;
  #queue: Promise<void> = Promise.resolve();
  #epoch = 0;
  /** Height of the last rebase heard. */
  #rebasedTo = -1;

  constructor(deps: ActivityFeedDeps) {
    this.#d = deps;
  }

  block(set: TouchedSet): void {
    this.#queue = this.#queue
      .then(() => this.#step(set))
      .catch((err: unknown) => this.#d.logger.error({ err: toProxyError(err).message }, 'activity feed step failed'));
  }

  pending(set: PendingTouched): void {
    if (set.hashes.length > 0) this.#d.channel.pending(set.hashes, set.addresses, set.contracts);
  }

  rebase(height: number): void {
    this.#epoch++;
    this.#rebasedTo = height;
    this.#rebase(height);
  }

  /** Resolves once every set published so far is handled. */
  settled(): Promise<void> {
    return this.#queue;
  }

  #rebase(height: number): void {
    const latest = this.#d.history.height;
    if (latest <= height) return;
    this.#d.history.rebase(height, latest);
    this.#d.channel.rebase(height, rebaseFrame(height, latest, this.#d.chain.finalHeight(), this.#d.clock()));
  }

  async #step(set: TouchedSet): Promise<void> {
    const { history, channel } = this.#d;
    const seen = history.at(set.height);
    if (seen !== undefined && seen.hash === set.blockHash) return;
    // A replaced block: the blocks above it stay (sent again after it).
    const above = seen === undefined ? [] : history.above(set.height);
    if (set.height <= history.height) this.#rebase(set.height - 1);
    const now = this.#d.clock();
    channel.prune(now);
    const matched = new Set<string>();
    for (const e of set.addresses) if (channel.watching(e, now)) matched.add(e);
    for (const e of set.contracts) if (channel.watching(e, now)) matched.add(e);
    let txs: TxRecord[] = [];
    let complete = set.complete;
    if (matched.size > 0) {
      const epoch = this.#epoch;
      try {
        txs = await txsNaming(this.#d.reader, set.height, matched);
      } catch (err) {
        this.#d.logger.warn(
          { err: toProxyError(err).message, height: set.height },
          'activity: block transactions unavailable',
        );
        this.#d.readFailed();
        txs = [];
        complete = false;
      }
      // Rebased while reading: this set may not be believed any more (the reader publishes the real one).
      if (epoch !== this.#epoch && set.height > this.#rebasedTo) return;
    }
    const record = blockRecord(set, matched, txs, complete);
    for (const r of [record, ...above]) {
      history.push(r);
      channel.publish(r);
    }
  }
}
