/**
 * The activity stream's memory of recent blocks, for Last-Event-ID resumes:
 * per block its height and hash, and, for blocks that named a watched entity,
 * the transaction records that name one (shared Buffers of the tx/list
 * answers) with the entities they name. Bounded in bytes
 * (STREAM_ACTIVITY_HISTORY_BYTES): the oldest blocks go first, and the heights
 * from which the history is whole move up with them.
 */
import { RebaseLog } from '../rebases.js';

/** One transaction record (the upstream's bytes) and the watched entities it names. */
export interface TxRecord {
  bytes: Buffer;
  names: readonly string[];
}

export interface BlockRecord {
  height: number;
  hash: string;
  /** The set could not be read whole (the block's names may be partial). */
  complete: boolean;
  /** Watched entities the block names (empty: none watched). */
  matched: ReadonlySet<string>;
  txs: readonly TxRecord[];
  /** What this record is charged. */
  bytes: number;
}

/** Bookkeeping charged per block and per name (object, array slots, map entries). */
const BLOCK_OVERHEAD = 160;
const NAME_OVERHEAD = 64;

function chargeOf(hash: string, matched: ReadonlySet<string>, txs: readonly TxRecord[]): number {
  let n = BLOCK_OVERHEAD + hash.length + matched.size * NAME_OVERHEAD;
  for (const t of txs) n += t.bytes.length + NAME_OVERHEAD * (1 + t.names.length);
  return n;
}

/** The record of block `set` for the `matched` entities, with the transactions naming them, charged. */
export function blockRecord(
  set: { height: number; blockHash: string },
  matched: ReadonlySet<string>,
  txs: readonly TxRecord[],
  complete: boolean,
): BlockRecord {
  return {
    height: set.height,
    hash: set.blockHash,
    complete,
    matched,
    txs,
    bytes: chargeOf(set.blockHash, matched, txs),
  };
}

export class ActivityHistory {
  readonly #maxBytes: number;
  #records: BlockRecord[] = [];
  #head = 0;
  #bytes = 0;
  /** Lowest height from which every block seen is kept (-1: nothing seen yet). */
  #whole = -1;
  /** Newest height the stream stands at (-1: none yet); lowered by a rebase. */
  #height = -1;
  readonly rebases = new RebaseLog();

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Heights from here on are all kept (none evicted); -1 before the first block. */
  get wholeFrom(): number {
    return this.#whole;
  }

  /** The newest height seen (or rebased to); -1 before the first block. */
  get height(): number {
    return this.#height;
  }

  at(height: number): BlockRecord | undefined {
    const i = this.#index(height);
    const r = this.#records[i];
    return r !== undefined && r.height === height ? r : undefined;
  }

  push(r: BlockRecord): void {
    if (this.#whole < 0) this.#whole = r.height;
    this.#height = r.height;
    this.#records.push(r);
    this.#bytes += r.bytes;
    while (this.#bytes > this.#maxBytes && this.#head < this.#records.length) {
      const old = this.#records[this.#head++]!;
      this.#bytes -= old.bytes;
      this.#whole = old.height + 1;
    }
    // Compact in batches so a push is O(1) amortized.
    if (this.#head > 1024 && this.#head * 2 > this.#records.length) {
      this.#records = this.#records.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Kept records above `height`, oldest first. */
  above(height: number): BlockRecord[] {
    return this.#records.slice(this.#index(height + 1));
  }

  /** Kept records above `height` that name one of `entities`, oldest first. */
  matching(height: number, entities: ReadonlySet<string>): BlockRecord[] {
    const out: BlockRecord[] = [];
    for (let i = this.#index(height + 1); i < this.#records.length; i++) {
      const r = this.#records[i]!;
      for (const e of r.matched) {
        if (entities.has(e)) {
          out.push(r);
          break;
        }
      }
    }
    return out;
  }

  /** Drops every block above `height` (no longer believed) and remembers the rebase from `from`. */
  rebase(height: number, from: number): void {
    const i = this.#index(height + 1);
    for (let j = i; j < this.#records.length; j++) this.#bytes -= this.#records[j]!.bytes;
    this.#records.length = Math.max(i, this.#head);
    this.#height = height;
    this.rebases.push(height, from);
  }

  /** Index of the first kept record at or above `height`. */
  #index(height: number): number {
    let lo = this.#head;
    let hi = this.#records.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#records[mid]!.height < height) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
