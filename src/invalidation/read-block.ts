/**
 * Reads what one block names, around the client cache (own-reads.ts): its
 * record (coinbase, miner, hash), every page of `tx/list?block_height=N`
 * (senders, recipients, called and deployed contracts), both verified
 * (verify-block.ts), the recipient of each NRC20 transfer (`tx/detail`: the
 * Transaction record names only the token contract), and the parties of
 * transactions newly seen in the pending pool. Any failure rejects: the
 * caller falls back to the head rule for that block. The answers of a
 * verified reading are stored for clients before it resolves.
 */
import type { Catalogue } from '../catalogue/index.js';
import type { ParamLimits } from '../endpoints/types.js';
import { blockList } from '../endpoints/block-list.js';
import { tokenList } from '../endpoints/token-list.js';
import { txListPending } from '../endpoints/tx-list-pending.js';
import { hashOf } from './cross-check.js';
import type { Fetched, OwnReads } from './own-reads.js';
import type { PendingTouched, TouchedSet } from '../chain/touched.js';
import { BlockVerifier, pagesOf, type Rec } from './verify-block.js';
import { addRows, WINDOW_MAX, type RecentBlocks } from './reorg-window.js';
import { HeardPool } from './heard-pool.js';

/** The reorg window's first page (the home page's block list). */
const RECENT = 20;

interface Parties {
  addresses: Set<string>;
  contracts: Set<string>;
  deployed: Set<string>;
  tokens: Set<string>;
}
const parties = (): Parties => ({ addresses: new Set(), contracts: new Set(), deployed: new Set(), tokens: new Set() });

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The addresses a pool entry names directly (whose lists show it pending). */
function namedBy(tx: Rec): string[] {
  const out: string[] = [];
  for (const k of ['address_from', 'address_to', 'contract_address']) {
    const a = str(tx[k]);
    if (a !== null) out.push(a);
  }
  return out;
}

export class BlockReading {
  readonly #reads: OwnReads;
  readonly #verify: BlockVerifier;
  /**
   * Pool entries seen at the previous read, with the addresses each names (null: none read yet, every entry is new).
   */
  #pool: Map<string, readonly string[]> | null = null;
  /** The pool's hashes in order at the previous read (null: none read yet). */
  #poolOrder: string | null = null;
  /** Parties of pool entries seen by the poll since the last block read, and the transactions gone from it. */
  #carry = { addresses: new Set<string>(), contracts: new Set<string>(), left: new Set<string>() };

  /** Pool transactions whose parties were published here or by another replica. */
  readonly #heard = new HeardPool();

  /** Token contracts by address as last read, and until when its entry was fresh. */
  #tokenMap: { map: ReadonlyMap<string, string>; until: number } | null = null;
  readonly #clock: () => number;

  constructor(catalogue: Catalogue, limits: ParamLimits, reads: OwnReads, clock: () => number) {
    this.#reads = reads;
    this.#verify = new BlockVerifier(catalogue, limits, reads);
    this.#clock = clock;
  }

  /**
   * Token contracts by address. The list changes with deployments: kept from
   * one block to the next (not refetched while every tag-kept entry waits for
   * the block being read), read again when a block deploys a contract, or
   * once its entry's freshness ends.
   */
  async #tokens(signal: AbortSignal, deploys: boolean, keep: Fetched[]): Promise<ReadonlyMap<string, string>> {
    const known = this.#tokenMap;
    if (!deploys && known !== null && this.#clock() < known.until) return known.map;
    const { data: d, read } = await this.#verify.get(tokenList.path, '', signal, 'block');
    keep.push(read);
    const list = Array.isArray(d) ? (d as Rec[]) : Array.isArray(d['list']) ? (d['list'] as Rec[]) : [];
    const map = new Map<string, string>();
    for (const t of list) {
      const c = str(t['contract']);
      const n = str(t['token_name']);
      if (c !== null && n !== null) map.set(c, n);
    }
    this.#tokenMap = { map, until: read.entry.freshUntil };
    return map;
  }

  /**
   * Pool news published (here, or by another replica on the bus): its
   * transactions are not new to this reader's next pool read, and what another
   * reader's news named is carried into the next block set read here (heard-pool.ts).
   */
  heard(p: PendingTouched): void {
    this.#heard.add(p, this.#pool);
  }

  /** The leader's pool now: every transaction in it had its parties published when a reader first saw it. */
  heardPool(hashes: readonly string[]): void {
    this.#heard.pool(hashes);
  }

  /** A block set was published, read here or by another replica. */
  blockPublished(set: TouchedSet): void {
    this.#heard.blockPublished(set);
  }

  /** Every page (data) of the pool; `reads` gets each answer. */
  #readPool(signal: AbortSignal, reads: Fetched[]): Promise<Rec[]> {
    return pagesOf(txListPending.path, '', (q) => this.#verify.get(txListPending.path, q, signal, 'pending'), reads);
  }

  /**
   * Adds the parties of `txs` to the sets; NRC20 recipients read with
   * tx/detail (`height`: the block they are mined in, checked; null: pending).
   */
  async #parties(
    txs: readonly Rec[],
    tokens: ReadonlyMap<string, string>,
    into: Parties,
    signal: AbortSignal,
    height: number | null,
    keep: Fetched[],
  ): Promise<void> {
    const transfers: string[] = [];
    for (const tx of txs) {
      const from = str(tx['address_from']);
      const to = str(tx['address_to']);
      const deployed = str(tx['contract_address']);
      if (from !== null) into.addresses.add(from);
      if (to !== null) into.addresses.add(to);
      if (deployed !== null) {
        into.addresses.add(deployed);
        into.contracts.add(deployed);
        into.deployed.add(deployed);
      }
      if (to !== null && tx['tx_type'] !== 'binary') into.contracts.add(to);
      const token = to === null ? undefined : tokens.get(to);
      const hash = str(tx['tx_hash']);
      if (token !== undefined && hash !== null) {
        into.tokens.add(token);
        transfers.push(hash);
      }
    }
    for (const hash of transfers) {
      const { data: d, read } = await this.#verify.transfer(hash, signal, height);
      keep.push(read);
      const to = str(d['address_supporting']);
      if (to !== null) into.addresses.add(to);
    }
  }

  /**
   * The touched set of block `height` (complete), and the pool's new entries;
   * `known`: the hash the block list shows for it (read meanwhile). Its answers are stored for
   * clients before it resolves. Rejects when anything cannot be read, and with
   * CrossCheckFailed when no reading agrees.
   */
  async read(
    height: number,
    signal: AbortSignal,
    known: Promise<string | undefined>,
  ): Promise<{ set: TouchedSet; pending: PendingTouched }> {
    const poolReads: Fetched[] = [];
    const [v, pool] = await Promise.all([
      this.#verify.verified(height, signal, known),
      this.#readPool(signal, poolReads),
    ]);
    const keep: Fetched[] = [...v.reads, ...poolReads];
    const block = v.block;
    const txs = v.pages.flatMap((p) => p['list'] as Rec[]);
    const tokens = await this.#tokens(
      signal,
      txs.some((t) => str(t['contract_address']) !== null),
      keep,
    );
    const into = parties();
    for (const k of ['coinbase', 'miner']) {
      const a = str(block[k]);
      if (a !== null) into.addresses.add(a);
    }
    await this.#parties(txs, tokens, into, signal, height, keep);
    const carried = this.#carry;
    this.#carry = { addresses: new Set<string>(), contracts: new Set<string>(), left: new Set<string>() };
    const { pending, gone, left } = await this.#pending(
      pool.flatMap((p) => p['list'] as Rec[]),
      tokens,
      signal,
      keep,
    );
    const heard = this.#heard.carried();
    for (const a of [...pending.addresses, ...gone, ...carried.addresses, ...heard.addresses]) into.addresses.add(a);
    for (const c of [...pending.contracts, ...carried.contracts, ...heard.contracts]) into.contracts.add(c);
    const set: TouchedSet = {
      height,
      blockHash: hashOf(block),
      day:
        typeof block['timestamp'] === 'number' && Number.isFinite(block['timestamp'])
          ? Math.floor(block['timestamp'] / 86_400)
          : null,
      addresses: [...into.addresses],
      contracts: [...into.contracts],
      deployed: [...into.deployed],
      tokens: [...into.tokens],
      left: [...new Set([...txs.map((t) => String(t['tx_hash']).toLowerCase()), ...left, ...carried.left])],
      complete: true,
    };
    await this.#reads.keep(keep);
    return { set, pending };
  }

  /**
   * The reorg window (reorg-window.ts): the newest blocks with their hashes,
   * from the upstream now, down to the newest final one the list shows. The
   * first page is the home page's (stored for clients), then pages of 100 as
   * needed; reading it also teaches the tracker the final height.
   */
  async recent(signal: AbortSignal): Promise<RecentBlocks> {
    const hashes = new Map<number, string>();
    const page = async (query: string, size: number): Promise<boolean> => {
      const { data: d, read } = await this.#verify.get(blockList.path, query, signal, 'block');
      await this.#reads.keep([read]);
      const list = Array.isArray(d['list']) ? (d['list'] as unknown[]) : [];
      return addRows(list, hashes) || list.length < size;
    };
    let done = await page(`page=1&page_size=${RECENT}`, RECENT);
    for (let n = 1; !done && hashes.size < WINDOW_MAX; n++) done = await page(`page=${n}&page_size=100`, 100);
    let lowest: number | null = null;
    for (const h of hashes.keys()) if (lowest === null || h < lowest) lowest = h;
    return { hashes, lowest, cut: !done };
  }

  /**
   * The pool's entries new since the previous read (the between-blocks poll).
   * Whom they name is carried into the next block's set, so the answers that
   * list pending transactions are invalidated with that block. The pool is
   * read from the upstream; `changed`: its transactions or their order differ
   * from the previous read.
   */
  async pending(signal: AbortSignal): Promise<{ pending: PendingTouched; changed: boolean; pool: string[] }> {
    const before = this.#poolOrder;
    const keep: Fetched[] = [];
    const [tokens, pool] = await Promise.all([this.#tokens(signal, false, keep), this.#readPool(signal, keep)]);
    const {
      pending: p,
      gone,
      left,
    } = await this.#pending(
      pool.flatMap((d) => d['list'] as Rec[]),
      tokens,
      signal,
      keep,
    );
    for (const a of [...p.addresses, ...gone]) this.#carry.addresses.add(a);
    for (const h of left) this.#carry.left.add(h);
    for (const c of p.contracts) this.#carry.contracts.add(c);
    await this.#reads.keep(keep);
    return { pending: p, changed: before !== this.#poolOrder, pool: [...(this.#pool?.keys() ?? [])] };
  }

  /**
   * Transactions in the pool now that were not at the previous read, and whom
   * they name; `gone`: whom the entries gone since name, for the block's set
   * only (not news of the pool): one dropped unmined leaves the lists that
   * showed it pending (a mined one is named by its block anyway); `left`: those entries' hashes.
   */
  async #pending(
    txs: readonly Rec[],
    tokens: ReadonlyMap<string, string>,
    signal: AbortSignal,
    keep: Fetched[],
  ): Promise<{ pending: PendingTouched; gone: string[]; left: string[] }> {
    const seen = this.#pool;
    const fresh = txs.filter((t) => {
      const h = String(t['tx_hash']);
      return seen?.has(h) !== true && !this.#heard.has(h);
    });
    const into = parties();
    await this.#parties(fresh, tokens, into, signal, null, keep);
    const pool = new Map<string, readonly string[]>();
    for (const t of txs) pool.set(String(t['tx_hash']), namedBy(t));
    const gone: string[] = [];
    const left: string[] = [];
    if (seen !== null)
      for (const [hash, names] of seen)
        if (!pool.has(hash)) {
          gone.push(...names);
          left.push(hash.toLowerCase());
        }
    this.#heard.forget(left);
    this.#pool = pool;
    this.#poolOrder = [...pool.keys()].join(',');
    return {
      pending: {
        hashes: fresh.map((t) => String(t['tx_hash'])),
        addresses: [...into.addresses],
        contracts: [...into.contracts],
      },
      gone,
      left,
    };
  }
}
