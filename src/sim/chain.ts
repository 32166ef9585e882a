/**
 * The living chain: only the head height is state. Everything else is derived from
 * (seed, head). A timer produces one block per blockIntervalMs; a frozen chain ignores
 * both the timer and advance() (it acts as a lagging backend and stays behind after unfreezing).
 */
import { GENESIS_TIME, PENDING_WINDOW } from './constants.js';
import { isPendingAt } from './records/pending.js';
import { extrasBefore, txCountAt, txPrefix } from './records/txcount.js';

export interface SimChainOptions {
  seed: number;
  startHeight: number;
  finalityDepth: number;
  blockIntervalMs: number;
  /** Unix seconds of block 0: block h is timed genesisTime + 15 h. Default: the recorded-fixture alignment. */
  genesisTime?: number;
  /** Calls pay internal transfers to addresses they do not name (records/internal.ts). Default false. */
  internalTransfers?: boolean;
}

export type BlockListener = (head: number) => void;

export class SimChain {
  readonly seed: number;
  readonly finalityDepth: number;
  readonly blockIntervalMs: number;
  readonly genesisTime: number;
  readonly internalTransfers: boolean;
  private headHeight: number;
  private frozen = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<BlockListener>();
  private pendingCache = { head: -1, heights: [] as number[], indexes: [] as number[], extrasBefore: [] as number[] };

  constructor(o: SimChainOptions) {
    if (!Number.isInteger(o.startHeight) || o.startHeight < 1 || o.startHeight > 200_000_000) {
      throw new RangeError('startHeight must be an integer in 1..200000000');
    }
    this.seed = o.seed >>> 0;
    this.finalityDepth = o.finalityDepth;
    this.blockIntervalMs = o.blockIntervalMs;
    this.genesisTime = o.genesisTime ?? GENESIS_TIME;
    this.internalTransfers = o.internalTransfers ?? false;
    this.headHeight = o.startHeight;
  }

  /** Height of the newest block. */
  head(): number {
    return this.headHeight;
  }

  /** Highest final (irreversible) block: blocks above it have is_finality false. */
  finalHeight(): number {
    return Math.max(0, this.headHeight - this.finalityDepth);
  }

  isFinal(h: number): boolean {
    return h <= this.headHeight - this.finalityDepth;
  }

  /** Produces n blocks at once (ignored while frozen). Returns the head. */
  advance(n = 1): number {
    if (this.frozen || !(n > 0)) return this.headHeight;
    this.headHeight += Math.floor(n);
    for (const l of this.listeners) l(this.headHeight);
    return this.headHeight;
  }

  freeze(on: boolean): void {
    this.frozen = on;
  }

  isFrozen(): boolean {
    return this.frozen;
  }

  onBlock(l: BlockListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Starts the block timer (no-op when blockIntervalMs is 0). */
  start(): void {
    if (this.blockIntervalMs > 0 && !this.timer) {
      this.timer = setInterval(() => this.advance(1), this.blockIntervalMs);
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Confirmed transactions (blocks 1..head). */
  txTotal(): number {
    return txPrefix(this.seed, this.headHeight + 1);
  }

  /**
   * Pending pool at the current head, in the order the txs will be included: heights, indexes,
   * and extrasBefore of each one's block.
   */
  pending(): { heights: readonly number[]; indexes: readonly number[]; extrasBefore: readonly number[] } {
    const c = this.pendingCache;
    if (c.head !== this.headHeight) {
      const heights: number[] = [];
      const indexes: number[] = [];
      const xbs: number[] = [];
      const head = this.headHeight;
      let xb = extrasBefore(this.seed, head + 1);
      for (let h = head + 1; h <= head + PENDING_WINDOW; h++) {
        const n = txCountAt(this.seed, h);
        for (let i = 0; i < n; i++) {
          if (isPendingAt(this.seed, h, i, head)) {
            heights.push(h);
            indexes.push(i);
            xbs.push(xb);
          }
        }
        xb += n - 1;
      }
      this.pendingCache = { head, heights, indexes, extrasBefore: xbs };
    }
    return this.pendingCache;
  }

  pendingCount(): number {
    return this.pending().heights.length;
  }
}
