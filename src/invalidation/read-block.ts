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

interface Answer {
  status: number;
  body: Buffer;
  /** ms epoch (the proxy's clock). */
  freshUntil: number;
}

/** The part of the resolver the reader uses. */
export interface Lookup {
  resolve(req: CanonicalRequest, client?: AbortSignal): Promise<{ entry: Answer }>;
  /** Fetched from the upstream now (and stored), whatever the cache holds. */
  revalidate(req: CanonicalRequest): Promise<Answer>;
}

type Rec = Record<string, unknown>;
const PAGE_SIZE = 100;
/** Newest blocks checked for a changed hash (the page size of the home page's block list). */
const RECENT = 20;
/** Pages of one block or of the pending pool read at most (a block larger than this is read as incomplete). */
const MAX_PAGES = 50;

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

function successData(name: EndpointName, query: string, entry: Answer): Rec {
  if (entry.status !== 200) throw new Error(`${name}?${query}: status ${entry.status}`);
  const env = JSON.parse(entry.body.toString('utf8')) as Rec;
  const data = env['data'];
  if (env['code'] !== 0 || typeof data !== 'object' || data === null) throw new Error(`${name}?${query}: not a success envelope`);
  return data as Rec;
}

export class BlockReading {
  readonly #catalogue: Catalogue;
  readonly #limits: ParamLimits;
  readonly #lookup: Lookup;
  /** Pool entries seen at the previous read, with the addresses each names (null: none read yet, every entry is new). */
  #pool: Map<string, readonly string[]> | null = null;
  /** The pool's hashes in order at the previous read (null: none read yet). */
  #poolOrder: string | null = null;
  /** Parties of pool entries seen by the poll since the last block read. */
  #carry = { addresses: new Set<string>(), contracts: new Set<string>() };

  /** Token contracts by address as last read, and until when its entry was fresh. */
  #tokenMap: { map: ReadonlyMap<string, string>; until: number } | null = null;
  readonly #clock: () => number;

  constructor(catalogue: Catalogue, limits: ParamLimits, lookup: Lookup, clock: () => number) {
    this.#catalogue = catalogue;
    this.#limits = limits;
    this.#lookup = lookup;
    this.#clock = clock;
  }

  /** `fresh`: from the upstream now, else through the cache. */
  async #entry(name: EndpointName, query: string, signal: AbortSignal, fresh: boolean): Promise<Answer> {
    const req = canonicalize(this.#catalogue.get(name), query, this.#limits);
    return fresh ? await this.#lookup.revalidate(req) : (await this.#lookup.resolve(req, signal)).entry;
  }

  async #data(name: EndpointName, query: string, signal: AbortSignal, fresh = false): Promise<Rec> {
    return successData(name, query, await this.#entry(name, query, signal, fresh));
  }

  /**
   * Token contracts by address. The list changes with deployments: kept from
   * one block to the next (not refetched while every tag-kept entry waits for
   * the block being read), read again from the upstream when a block deploys a
   * contract, and through the cache once its entry is no longer fresh.
   */
  async #tokens(signal: AbortSignal, deploys: boolean): Promise<ReadonlyMap<string, string>> {
    const known = this.#tokenMap;
    if (!deploys && known !== null && this.#clock() < known.until) return known.map;
    const entry = await this.#entry(tokenList.path, '', signal, deploys);
    const d = successData(tokenList.path, '', entry);
    const list = Array.isArray(d) ? (d as Rec[]) : Array.isArray(d['list']) ? (d['list'] as Rec[]) : [];
    const map = new Map<string, string>();
    for (const t of list) {
      const c = str(t['contract']);
      const n = str(t['token_name']);
      if (c !== null && n !== null) map.set(c, n);
    }
    this.#tokenMap = { map, until: entry.freshUntil };
    return map;
  }

  async #pages(name: EndpointName, query: string, signal: AbortSignal, fresh = false): Promise<Rec[]> {
    const out: Rec[] = [];
    for (let page = 1; ; page++) {
      const d = await this.#data(name, `${query}${query === '' ? '' : '&'}page=${page}&page_size=${PAGE_SIZE}`, signal, fresh);
      const list = d['list'];
      if (!Array.isArray(list)) throw new Error(`${name}: page ${page} without a list`);
      out.push(...(list as Rec[]));
      const total = d['total_page'];
      if (typeof total !== 'number' || page >= total) break;
      if (page >= MAX_PAGES) throw new Error(`${name}: more than ${MAX_PAGES} pages`);
    }
    return out;
  }

  /** Adds the parties of `txs` to the sets; NRC20 recipients read with tx/detail. */
  async #parties(txs: readonly Rec[], tokens: ReadonlyMap<string, string>, into: Parties, signal: AbortSignal): Promise<void> {
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
      const d = await this.#data(txDetail.path, `hash=${hash}`, signal);
      const to = str(d['address_supporting']);
      if (to !== null) into.addresses.add(to);
    }
  }

  /** The touched set of block `height` (complete), and the pool's new entries. Rejects when anything cannot be read. */
  async read(height: number, signal: AbortSignal): Promise<{ set: TouchedSet; pending: PendingTouched }> {
    const [block, txs, pool] = await Promise.all([
      this.#data(blockDetail.path, `h=${height}`, signal),
      this.#pages(txList.path, `block_height=${height}`, signal),
      this.#pages(txListPending.path, '', signal),
    ]);
    const tokens = await this.#tokens(signal, txs.some((t) => str(t['contract_address']) !== null));
    const into = parties();
    for (const k of ['coinbase', 'miner']) {
      const a = str(block[k]);
      if (a !== null) into.addresses.add(a);
    }
    await this.#parties(txs, tokens, into, signal);
    const carried = this.#carry;
    this.#carry = { addresses: new Set<string>(), contracts: new Set<string>() };
    const { pending, gone } = await this.#pending(pool, tokens, signal);
    for (const a of [...pending.addresses, ...gone, ...carried.addresses]) into.addresses.add(a);
    for (const c of [...pending.contracts, ...carried.contracts]) into.contracts.add(c);
    const set: TouchedSet = {
      height,
      blockHash: str(block['block_hash']) ?? str(block['hash']) ?? '',
      day: typeof block['timestamp'] === 'number' && Number.isFinite(block['timestamp']) ? Math.floor(block['timestamp'] / 86_400) : null,
      addresses: [...into.addresses],
      contracts: [...into.contracts],
      deployed: [...into.deployed],
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
   * list pending transactions are invalidated with that block. The pool is
   * read from the upstream (the cached pool is kept until it changes);
   * `changed`: its transactions or their order differ from the previous read.
   */
  async pending(signal: AbortSignal): Promise<{ pending: PendingTouched; changed: boolean }> {
    const before = this.#poolOrder;
    const [tokens, pool] = await Promise.all([this.#tokens(signal, false), this.#pages(txListPending.path, '', signal, true)]);
    const { pending: p, gone } = await this.#pending(pool, tokens, signal);
    for (const a of [...p.addresses, ...gone]) this.#carry.addresses.add(a);
    for (const c of p.contracts) this.#carry.contracts.add(c);
    return { pending: p, changed: before !== this.#poolOrder };
  }

  /**
   * Transactions in the pool now that were not at the previous read, and whom
   * they name; `gone`: whom the entries gone since name, for the block's set
   * only (not news of the pool): one dropped unmined leaves the lists that
   * showed it pending (a mined one is named by its block anyway).
   */
  async #pending(txs: readonly Rec[], tokens: ReadonlyMap<string, string>, signal: AbortSignal): Promise<{ pending: PendingTouched; gone: string[] }> {
    const seen = this.#pool;
    const fresh = seen === null ? txs : txs.filter((t) => !seen.has(String(t['tx_hash'])));
    const into = parties();
    await this.#parties(fresh, tokens, into, signal);
    const pool = new Map<string, readonly string[]>();
    for (const t of txs) pool.set(String(t['tx_hash']), namedBy(t));
    const gone: string[] = [];
    if (seen !== null) for (const [hash, names] of seen) if (!pool.has(hash)) gone.push(...names);
    this.#pool = pool;
    this.#poolOrder = [...pool.keys()].join(',');
    return { pending: { hashes: fresh.map((t) => String(t['tx_hash'])), addresses: [...into.addresses], contracts: [...into.contracts] }, gone };
  }
}
