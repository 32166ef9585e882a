/**
 * Reads what one block names, through the ordinary resolver (cached
 * requests): its record (coinbase, miner, hash), every page of
 * `tx/list?block_height=N` (senders, recipients, called and deployed
 * contracts), the recipient of each NRC20 transfer (`tx/detail`: the
 * Transaction record names only the token contract), and the parties of
 * transactions newly seen in the pending pool. Any failure or partial page
 * rejects: the caller falls back to the head rule for that block.
 */
import type { Catalogue } from '../catalogue/index.js';
import type { CanonicalRequest, EndpointName, ParamLimits } from '../catalogue/types.js';
import { canonicalize } from '../catalogue/canonicalize.js';
import { blockDetail } from '../endpoints/block-detail.js';
import { blockList } from '../endpoints/block-list.js';
import { tokenList } from '../endpoints/token-list.js';
import { txDetail } from '../endpoints/tx-detail.js';
import { txListPending } from '../endpoints/tx-list-pending.js';
import { txList } from '../endpoints/tx-list.js';
import type { PendingTouched, TouchedSet } from './touched.js';

/** The part of the resolver the reader uses. */
export interface Lookup {
  resolve(req: CanonicalRequest, client?: AbortSignal): Promise<{ entry: { status: number; body: Buffer } }>;
}

type Rec = Record<string, unknown>;
const PAGE_SIZE = 100;
/** Newest blocks checked for a changed hash (the page size of the home page's block list). */
const RECENT = 20;
/** Pages of one block or of the pending pool read at most (a block larger than this is read as incomplete). */
const MAX_PAGES = 50;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export class BlockReading {
  readonly #catalogue: Catalogue;
  readonly #limits: ParamLimits;
  readonly #lookup: Lookup;
  /** Pool hashes seen at the previous read (null: none read yet, every entry is new). */
  #pool: Set<string> | null = null;
  /** Parties of pool entries seen by the poll since the last block read. */
  #carry = { addresses: new Set<string>(), contracts: new Set<string>() };

  constructor(catalogue: Catalogue, limits: ParamLimits, lookup: Lookup) {
    this.#catalogue = catalogue;
    this.#limits = limits;
    this.#lookup = lookup;
  }

  async #data(name: EndpointName, query: string, signal: AbortSignal): Promise<Rec> {
    const r = await this.#lookup.resolve(canonicalize(this.#catalogue.get(name), query, this.#limits), signal);
    if (r.entry.status !== 200) throw new Error(`${name}?${query}: status ${r.entry.status}`);
    const env = JSON.parse(r.entry.body.toString('utf8')) as Rec;
    const data = env['data'];
    if (env['code'] !== 0 || typeof data !== 'object' || data === null) throw new Error(`${name}?${query}: not a success envelope`);
    return data as Rec;
  }

  async #pages(name: EndpointName, query: string, signal: AbortSignal): Promise<Rec[]> {
    const out: Rec[] = [];
    for (let page = 1; ; page++) {
      const d = await this.#data(name, `${query}${query === '' ? '' : '&'}page=${page}&page_size=${PAGE_SIZE}`, signal);
      const list = d['list'];
      if (!Array.isArray(list)) throw new Error(`${name}: page ${page} without a list`);
      out.push(...(list as Rec[]));
      const total = d['total_page'];
      if (typeof total !== 'number' || page >= total) break;
      if (page >= MAX_PAGES) throw new Error(`${name}: more than ${MAX_PAGES} pages`);
    }
    return out;
  }

  async #tokens(signal: AbortSignal): Promise<Map<string, string>> {
    const d = await this.#data(tokenList.path, '', signal);
    const list = Array.isArray(d) ? (d as Rec[]) : Array.isArray(d['list']) ? (d['list'] as Rec[]) : [];
    const out = new Map<string, string>();
    for (const t of list) {
      const c = str(t['contract']);
      const n = str(t['token_name']);
      if (c !== null && n !== null) out.set(c, n);
    }
    return out;
  }

  /** Adds the parties of `txs` to the sets; NRC20 recipients read with tx/detail. */
  async #parties(txs: readonly Rec[], tokens: ReadonlyMap<string, string>, into: { addresses: Set<string>; contracts: Set<string>; tokens: Set<string> }, signal: AbortSignal): Promise<void> {
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
      const d = await this.#data(txDetail.path, `hash=${hash}`, signal);
      const to = str(d['address_supporting']);
      if (to !== null) into.addresses.add(to);
    }
  }

  /** The touched set of block `height` (complete), and the pool's new entries. Rejects when anything cannot be read. */
  async read(height: number, signal: AbortSignal): Promise<{ set: TouchedSet; pending: PendingTouched }> {
    const [block, tokens, txs, pool] = await Promise.all([
      this.#data(blockDetail.path, `h=${height}`, signal),
      this.#tokens(signal),
      this.#pages(txList.path, `block_height=${height}`, signal),
      this.#pages(txListPending.path, '', signal),
    ]);
    const into = { addresses: new Set<string>(), contracts: new Set<string>(), tokens: new Set<string>() };
    for (const k of ['coinbase', 'miner']) {
      const a = str(block[k]);
      if (a !== null) into.addresses.add(a);
    }
    await this.#parties(txs, tokens, into, signal);
    const carried = this.#carry;
    this.#carry = { addresses: new Set<string>(), contracts: new Set<string>() };
    const pending = await this.#pending(pool, tokens, signal);
    for (const a of [...pending.addresses, ...carried.addresses]) into.addresses.add(a);
    for (const c of [...pending.contracts, ...carried.contracts]) into.contracts.add(c);
    const set: TouchedSet = {
      height,
      blockHash: str(block['block_hash']) ?? str(block['hash']) ?? '',
      addresses: [...into.addresses],
      contracts: [...into.contracts],
      tokens: [...into.tokens],
      complete: true,
    };
    return { set, pending };
  }

  /**
   * The newest blocks with their hashes (the first page clients poll, so
   * usually a hit); reading it also teaches the tracker the final height.
   */
  async recent(signal: AbortSignal): Promise<{ height: number; hash: string }[]> {
    const d = await this.#data(blockList.path, `page=1&page_size=${RECENT}`, signal);
    const list = Array.isArray(d['list']) ? (d['list'] as Rec[]) : [];
    const out: { height: number; hash: string }[] = [];
    for (const b of list) {
      const h = b['height'];
      const hash = str(b['block_hash']);
      if (typeof h === 'number' && hash !== null) out.push({ height: h, hash });
    }
    return out;
  }

  /**
   * The pool's entries new since the previous read (the between-blocks poll).
   * Whom they name is carried into the next block's set, so the answers that
   * list pending transactions are invalidated with that block.
   */
  async pending(signal: AbortSignal): Promise<PendingTouched> {
    const [tokens, pool] = await Promise.all([this.#tokens(signal), this.#pages(txListPending.path, '', signal)]);
    const p = await this.#pending(pool, tokens, signal);
    for (const a of p.addresses) this.#carry.addresses.add(a);
    for (const c of p.contracts) this.#carry.contracts.add(c);
    return p;
  }

  /** Transactions in the pool now that were not at the previous read, and whom they name. */
  async #pending(txs: readonly Rec[], tokens: ReadonlyMap<string, string>, signal: AbortSignal): Promise<PendingTouched> {
    const seen = this.#pool;
    const fresh = seen === null ? txs : txs.filter((t) => !seen.has(String(t['tx_hash'])));
    const into = { addresses: new Set<string>(), contracts: new Set<string>(), tokens: new Set<string>() };
    await this.#parties(fresh, tokens, into, signal);
    this.#pool = new Set(txs.map((t) => String(t['tx_hash'])));
    return { hashes: fresh.map((t) => String(t['tx_hash'])), addresses: [...into.addresses], contracts: [...into.contracts] };
  }
}
