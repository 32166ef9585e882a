/**
 * Tag invalidation without scanning the cache: for every tag, the height of
 * the newest block whose touched set named it. An entry fetched at head `h`
 * (the best head when its fetch began) is stale once one of its tags was named
 * by a block above `h`. Heights are the same on every replica (each one hears
 * every set), so entries read from the shared tier are judged alike.
 *
 * Fail safe, never less fresh than the head rule: while a believed block has
 * no set yet, or a block's set was incomplete, every tag-kept entry fetched
 * below it is stale. The map is bounded in bytes (charged to CACHE_MAX_BYTES):
 * the tags bumped longest ago are forgotten and raise a floor below which
 * every tag-kept entry is stale.
 *
 * Never fresh by default: an entry fetched below the first block this clock
 * has a set for (less one) cannot be judged and is stale, unless the fleet's
 * record of recent sets (`join`, src/fleet/record.ts) reaches back to it
 * without a gap. Until the clock has any set, every tag-kept entry is stale.
 *
 * The pending pool changes between blocks too: the pending poll reports it
 * (`poolChanged`), and every entry tagged `pending` created until then is stale.
 * While the poll cannot read the pool (`poolUnknown`), an entry tagged
 * `pending` keeps its endpoint's own TTL (`clientMaxMs`), and once the pool is
 * read again every such entry made until then is stale (what changed in
 * between is unknown).
 *
 * Reorgs and rebases leave marks: an entry fetched at or above a rewritten
 * height (or about such a block), created before the mark, is stale, and so
 * is a head-dependent entry. A rebase also lowers every height recorded above
 * the new head, so entries fetched from then on are judged by the blocks to come.
 */
import type { CacheEntry, EntryDeps } from '../cache/types.js';
import type { ChainHeights } from '../cache/entry.js';
import type { TouchedListener, TouchedSet } from '../chain/touched.js';
import { DAY_TAG, DEPLOYED, isTxTag, PENDING, tagOfAddress, tagOfToken, tagOfTx } from './tags.js';
import { joinable } from './joinable.js';
import type { GuardReason } from './metrics.js';

/** Rough bytes of one remembered tag: its string twice (key, UTF-16) plus the map slot. */
const tagBytes = (tag: string): number => 2 * tag.length + 64;

/** Reorg and rebase marks kept apart; older ones are merged (the lower height, the later time: never less stale). */
const MAX_MARKS = 8;

interface Mark {
  /** Entries fetched at or above this height, or about a block at or above it, ... */
  height: number;
  /** ... created until this time (the clock's), are stale. */
  at: number;
}

export interface BlockOutcome {
  height: number;
  complete: boolean;
  tags: number;
}

export class TagClock implements TouchedListener {
  readonly #at = new Map<string, number>();
  readonly #hashes = new Map<number, string>();
  readonly #maxBytes: number;
  readonly #clock: () => number;
  readonly #onBlock: (o: BlockOutcome) => void;
  #bytes = 0;
  /** Every block up to this height has a set (complete or not). */
  #covered = -1;
  /** Highest block whose set was incomplete. */
  #incomplete = -1;
  /** Tags forgotten were named at or below it. */
  #floor = -1;
  /** Reorgs and rebases, oldest first. */
  readonly #marks: Mark[] = [];
  /** UTC day of the last complete block read (null: none yet, or unknown). */
  #day: number | null = null;
  /** When the pending poll last saw the pool change (ms, the clock's). */
  #poolAt = -1;
  /** The last poll could not read the pool. */
  #poolUnknown = false;
  /** The pool was read again after it was unknown: the next read stales once more. */
  #poolSettling = false;
  /** Entries fetched below this height cannot be judged (before what this clock or the fleet record covers). */
  #joined = Number.POSITIVE_INFINITY;
  /** Highest complete block that did not say which transactions left the pool (every one may have). */
  #anyTx = -1;

  readonly #onStale: (entry: CacheEntry) => void;
  readonly #onGuarded: (reason: GuardReason) => void;

  constructor(opts: {
    maxBytes: number;
    clock: () => number;
    onBlock?: (o: BlockOutcome) => void;
    onStale?: (entry: CacheEntry) => void;
    onGuarded?: (reason: GuardReason) => void;
  }) {
    this.#maxBytes = opts.maxBytes;
    this.#clock = opts.clock;
    this.#onBlock = opts.onBlock ?? (() => {});
    this.#onStale = opts.onStale ?? (() => {});
    this.#onGuarded = opts.onGuarded ?? (() => {});
  }

  /** `stale`'s judgement, unreported (no metric, no refresh ahead). */
  named(entry: CacheEntry, chain: ChainHeights): boolean {
    const d = entry.deps;
    return d === undefined ? this.#rewrittenUnder(entry) : this.#stale(entry, d, chain);
  }

  /** Synchronous and allocation-free: checked on every read of a tag-kept entry. */
  stale(entry: CacheEntry, chain: ChainHeights): boolean {
    const d = entry.deps;
    if (d === undefined) return this.#rewrittenUnder(entry);
    if (!this.#stale(entry, d, chain)) return false;
    if (d.tags.length > 0 && (entry.head ?? -1) < this.#joined) this.#onGuarded('joined-late');
    else this.#onStale(entry);
    return true;
  }

  #stale(entry: CacheEntry, d: EntryDeps, chain: ChainHeights): boolean {
    const h = entry.head ?? -1;
    if (d.watchFinal !== null) {
      const f = chain.finalHeight();
      if (f !== null && f >= d.watchFinal) return true;
      // Fetched before the proxy believed its block: what an upstream had then is not trusted.
      if (d.watchFinal > h) return true;
      if (this.#marked(d.watchFinal, entry.createdAt)) return true;
    }
    if (this.#marked(h, entry.createdAt)) return true;
    const best = chain.bestHead();
    if (d.watchHead !== undefined && (best === null || best >= d.watchHead)) return true;
    if (d.tags.length === 0) return false;
    // The fail-safe: a block above `h` without a set, an incomplete one, forgotten tags, before what is judged.
    if (best !== null && best > h && this.#covered < best) return true;
    if (this.#incomplete > h || this.#floor > h || this.#joined > h) return true;
    for (let i = 0; i < d.tags.length; i++) if (this.#namedAfter(d.tags[i]!, h, entry, d)) return true;
    return false;
  }

  /**
   * The one question about a tag: was it named after height `h` (by a block above it; for the pool's
   * tags also by the pending poll since the entry was made, or unknown for longer than its own TTL)?
   */
  #namedAfter(tag: string, h: number, entry: CacheEntry, d: EntryDeps): boolean {
    const at = this.#at.get(tag);
    if (at !== undefined && at > h) return true;
    if (tag === PENDING) return entry.createdAt <= this.#poolAt || this.#poolAged(entry, d);
    // A pending transaction: only its leaving the pool changes it, told by the block it left with (a block that
    // did not say which left names every one).
    if ((this.#anyTx > h || this.#poolUnknown) && isTxTag(tag)) return this.#anyTx > h || this.#poolAged(entry, d);
    return false;
  }

  /** The pool cannot be read: what depends on it keeps its endpoint's own TTL. */
  #poolAged(entry: CacheEntry, d: EntryDeps): boolean {
    return this.#poolUnknown && this.#clock() - entry.createdAt >= (d.clientMaxMs ?? 0);
  }

  /** Highest height below which every block has a set. */
  get covered(): number {
    return this.#covered;
  }

  /** Lowest head a tag-kept entry may have been fetched at to be judged (null: none yet, every one is stale). */
  get judgedFrom(): number | null {
    return Number.isFinite(this.#joined) ? this.#joined : null;
  }

  /** The hash block `height` is known by ('' when nothing told it). */
  hashOf(height: number): string | undefined {
    return this.#hashes.get(height);
  }

  has(height: number): boolean {
    return this.#hashes.has(height) || height <= this.#covered;
  }

  get tags(): number {
    return this.#at.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  block(set: TouchedSet): void {
    const seen = this.#hashes.get(set.height);
    if (seen !== undefined && seen !== '' && set.blockHash !== '' && seen !== set.blockHash)
      this.#rewritten(set.height);
    // A set that knows no hash (not read) leaves the one the height is known by.
    if (seen === undefined || set.blockHash !== '') this.#hashes.set(set.height, set.blockHash);
    let n = 0;
    if (!set.complete) this.#incomplete = Math.max(this.#incomplete, set.height);
    else {
      for (const a of set.addresses) n += this.#bump(tagOfAddress(a), set.height);
      for (const c of set.contracts) n += this.#bump(tagOfAddress(c), set.height);
      for (const t of set.tokens) n += this.#bump(tagOfToken(t), set.height);
      if (set.deployed.length > 0) n += this.#bump(DEPLOYED, set.height);
      // Every block takes transactions out of the pool.
      n += this.#bump(PENDING, set.height);
      n += this.#left(set);
      // A new day, or one that cannot be told (the first block read, a block without a timestamp).
      if (set.day === null || set.day !== this.#day) n += this.#bump(DAY_TAG, set.height);
      this.#day = set.day;
    }
    while (this.#hashes.has(this.#covered + 1)) this.#covered++;
    if (this.#covered < 0) {
      this.#covered = set.height;
      this.#joined = Math.min(this.#joined, set.height - 1);
    }
    this.#trimHashes();
    this.#onBlock({ height: set.height, complete: set.complete, tags: n });
  }

  /** The pending poll saw the pool change: entries tagged `pending` created until now are stale. */
  poolChanged(): void {
    this.#poolAt = this.#clock();
  }

  /** The pending poll could not read the pool: entries tagged `pending` keep their own TTL until it can. */
  poolUnknown(): void {
    this.#poolUnknown = true;
  }

  /**
   * The pending poll read the pool. After it was unknown, entries tagged
   * `pending` made until now are stale, and again at the next read (an answer
   * older than this read may be stored after it).
   */
  poolKnown(): void {
    if (!this.#poolUnknown && !this.#poolSettling) return;
    this.#poolSettling = this.#poolUnknown;
    this.#poolUnknown = false;
    this.#poolAt = this.#clock();
  }

  /**
   * The first block the proxy reads: blocks below it are not read
   * here (what was fetched before it is judged by `join`, or stale).
   */
  start(height: number): void {
    if (this.#covered >= 0) return;
    this.#covered = height - 1;
    this.#joined = Math.min(this.#joined, height - 1);
  }

  /**
   * The fleet's record of recent sets (by height), read at start and after a
   * reconnect: applied like sets heard here, as far back as it goes without
   * a gap, so entries fetched since then are judged by it. Before this clock
   * has a set, the record must reach `head` − JOIN_GAP (the reader reads the
   * blocks after it); afterwards it must meet what the clock knows. Returns
   * whether it was used.
   */
  join(sets: readonly TouchedSet[], head: number | null): boolean {
    const started = this.#covered >= 0;
    const r = joinable(sets, started ? this.#covered : head, started ? this.#joined : null);
    if (r === null) return false;
    let day: number | null | undefined;
    for (const set of r.sets) {
      const seen = this.#hashes.get(set.height);
      // Two hashes for one height in the record: a block was replaced before this replica heard of it.
      if (seen !== undefined && seen !== '' && set.blockHash !== '' && seen !== set.blockHash)
        this.#rewritten(set.height);
      if (seen === undefined || set.blockHash !== '') this.#hashes.set(set.height, set.blockHash);
      if (!set.complete) {
        this.#incomplete = Math.max(this.#incomplete, set.height);
        continue;
      }
      for (const a of set.addresses) this.#bump(tagOfAddress(a), set.height);
      for (const c of set.contracts) this.#bump(tagOfAddress(c), set.height);
      for (const t of set.tokens) this.#bump(tagOfToken(t), set.height);
      if (set.deployed.length > 0) this.#bump(DEPLOYED, set.height);
      this.#bump(PENDING, set.height);
      this.#left(set);
      if (set.day === null || set.day !== day) this.#bump(DAY_TAG, set.height);
      day = set.day;
    }
    if (!started) {
      this.#covered = r.to;
      if (day !== undefined) this.#day = day;
    }
    this.#joined = Math.min(this.#joined, r.from - 1);
    this.#trimHashes();
    return true;
  }

  /**
   * The chain went back to `height` (every upstream followed down): what was
   * fetched above it is stale, its blocks are owed again, and every height
   * recorded above it (tags, the incomplete block, the forgotten tags' floor,
   * the horizon entries are judged from) is lowered to it, so entries fetched
   * at the new head are fresh until a block names them again.
   */
  rebase(height: number): void {
    // Below what this clock could judge: entries fetched at the new head before now cannot be judged either.
    this.#rewritten(this.#joined > height ? height : height + 1);
    this.#joined = Math.min(this.#joined, height);
    for (const h of [...this.#hashes.keys()]) if (h > height) this.#hashes.delete(h);
    this.#covered = Math.min(this.#covered, height);
    for (const [tag, at] of this.#at) if (at > height) this.#at.set(tag, height);
    this.#incomplete = Math.min(this.#incomplete, height);
    this.#floor = Math.min(this.#floor, height);
    this.#anyTx = Math.min(this.#anyTx, height);
  }

  /**
   * A height below the first block this clock has a set for, as the reader's
   * reorg window shows it: known by that hash from now on, like a height read
   * (an answer naming it by that hash is kept by its finality watch, and a
   * later change of the hash is a reorg). A height known already, or not yet
   * covered, is left as it is.
   */
  watch(height: number, hash: string): void {
    if (height > this.#covered || hash === '' || this.#hashes.has(height)) return;
    this.#hashes.set(height, hash);
    this.#trimHashes();
  }

  /**
   * The reader saw block `height` under a new hash: what was fetched about it,
   * or at or above it, until now is stale at once. It is known by `hash` from
   * now on, so the set read again does not mark it a second time (a set of
   * yet another hash does), and a later change is seen again.
   */
  rewrite(height: number, hash: string): void {
    this.#rewritten(height);
    this.#hashes.set(height, hash);
  }

  #rewritten(height: number): void {
    this.#marks.push({ height, at: this.#clock() });
    if (this.#marks.length <= MAX_MARKS) return;
    const [a, b] = this.#marks.splice(0, 2) as [Mark, Mark];
    this.#marks.unshift({ height: Math.min(a.height, b.height), at: Math.max(a.at, b.at) });
  }

  /** A mark covers what was fetched at (or is about) height `h` and created at `createdAt`. */
  #marked(h: number, createdAt: number): boolean {
    for (let i = 0; i < this.#marks.length; i++) {
      const m = this.#marks[i]!;
      if (h >= m.height && createdAt <= m.at) return true;
    }
    return false;
  }

  /** A head-dependent entry (no tags) fetched at or above a rewritten height before it was rewritten. */
  #rewrittenUnder(entry: CacheEntry): boolean {
    return entry.headDependent && this.#marks.length > 0 && this.#marked(entry.head ?? -1, entry.createdAt);
  }

  /** The transactions that left the pool with a complete block; a set that does not say: every one may have. */
  #left(set: TouchedSet): number {
    if (set.left === undefined) {
      this.#anyTx = Math.max(this.#anyTx, set.height);
      return 0;
    }
    let n = 0;
    for (const hash of set.left) n += this.#bump(tagOfTx(hash), set.height);
    return n;
  }

  #bump(tag: string, height: number): number {
    const was = this.#at.get(tag);
    if (was !== undefined) {
      if (was >= height) return 0;
      this.#at.delete(tag);
    } else this.#bytes += tagBytes(tag);
    this.#at.set(tag, height);
    while (this.#bytes > this.#maxBytes && this.#at.size > 0) {
      const [oldest, h] = this.#at.entries().next().value as [string, number];
      this.#at.delete(oldest);
      this.#bytes -= tagBytes(oldest);
      this.#floor = Math.max(this.#floor, h);
    }
    return 1;
  }

  #trimHashes(): void {
    if (this.#hashes.size <= 4096) return;
    for (const h of this.#hashes.keys()) {
      if (this.#hashes.size <= 2048) break;
      this.#hashes.delete(h);
    }
  }
}
