/**
 * A block's reading the reader can trust: its record (`block/detail?h=N`)
 * and every page of `tx/list?block_height=N`, read around the client cache
 * (own-reads.ts) and cross-checked (cross-check.ts). On a mismatch the other
 * upstreams are asked, one attempt each (a whole reading from one upstream),
 * and a reading is taken only when it agrees with itself and its hash is
 * vouched for by a second source: the block list's hash for that height, or
 * another upstream's agreeing reading. None: CrossCheckFailed. The NRC20
 * transfers' `tx/detail` must name the block too.
 */
import type { Catalogue } from '../catalogue/index.js';
import type { CanonicalRequest, EndpointName } from '../catalogue/types.js';
import type { ParamLimits } from '../endpoints/types.js';
import { canonicalize } from '../catalogue/canonicalize.js';
import { blockDetail } from '../endpoints/block-detail.js';
import { txDetail } from '../endpoints/tx-detail.js';
import { txList } from '../endpoints/tx-list.js';
import type { Purpose } from '../upstream/types.js';
import { hashOf, mismatch, type BlockVersion } from './cross-check.js';
import type { Fetched, OwnReads } from './own-reads.js';

export type Rec = Record<string, unknown>;
/** Page size of every list the reader reads (the API's largest). */
const PAGE_SIZE = 100;
/** Pages of one block or of the pending pool read at most (a block larger than this is read as incomplete). */
const MAX_PAGES = 50;

/** A block's reading disagreed with itself, and no other upstream gave one that agrees. */
export class CrossCheckFailed extends Error {}

/** `data` of a success answer; throws otherwise. */
function dataOf(req: CanonicalRequest, f: Fetched): Rec {
  const { status, body } = f.entry;
  if (status !== 200) throw new Error(`${req.key}: status ${status}`);
  const env = JSON.parse(body.toString('utf8')) as Rec;
  const data = env['data'];
  if (env['code'] !== 0 || typeof data !== 'object' || data === null)
    throw new Error(`${req.key}: not a success envelope`);
  return data as Rec;
}

/** Every page (its data) of a paged list, read with `get(query)`; `reads` gets each answer. */
export async function pagesOf(
  name: EndpointName,
  query: string,
  get: (query: string) => Promise<{ data: Rec; read: Fetched }>,
  reads: Fetched[],
): Promise<Rec[]> {
  const out: Rec[] = [];
  for (let page = 1; ; page++) {
    const { data: d, read } = await get(`${query}${query === '' ? '' : '&'}page=${page}&page_size=${PAGE_SIZE}`);
    reads.push(read);
    if (!Array.isArray(d['list'])) throw new Error(`${name}: page ${page} without a list`);
    out.push(d);
    const total = d['total_page'];
    if (typeof total !== 'number' || page >= total) break;
    if (page >= MAX_PAGES) throw new Error(`${name}: more than ${MAX_PAGES} pages`);
  }
  return out;
}

/** One reading of a block and the answers it was made of. */
export interface ReadVersion extends BlockVersion {
  reads: Fetched[];
  /** Upstreams that answered part of it. */
  from: Set<string>;
}

export class BlockVerifier {
  readonly #catalogue: Catalogue;
  readonly #limits: ParamLimits;
  readonly #reads: OwnReads;

  constructor(catalogue: Catalogue, limits: ParamLimits, reads: OwnReads) {
    this.#catalogue = catalogue;
    this.#limits = limits;
    this.#reads = reads;
  }

  #req(name: EndpointName, query: string): CanonicalRequest {
    return canonicalize(this.#catalogue.get(name), query, this.#limits);
  }

  /** From the upstream now: any (the pool's choice), or `only` that one. */
  async get(
    name: EndpointName,
    query: string,
    signal: AbortSignal,
    purpose: Purpose,
    only: string | null = null,
  ): Promise<{ data: Rec; read: Fetched }> {
    const req = this.#req(name, query);
    const read =
      only === null
        ? await this.#reads.read(req, signal, purpose)
        : await this.#reads.readFrom(req, signal, purpose, [], only);
    if (read === null) throw new Error(`${req.key}: ${only ?? 'no upstream'} did not answer`);
    return { data: dataOf(req, read), read };
  }

  #pages(height: number, signal: AbortSignal, reads: Fetched[], only: string | null): Promise<Rec[]> {
    return pagesOf(
      txList.path,
      `block_height=${height}`,
      (q) => this.get(txList.path, q, signal, 'block', only),
      reads,
    );
  }

  /** Block `height`'s record and pages, as the pool picks upstreams. */
  async #reading(height: number, signal: AbortSignal): Promise<ReadVersion> {
    const reads: Fetched[] = [];
    const [{ data: block, read }, pages] = await Promise.all([
      this.get(blockDetail.path, `h=${height}`, signal, 'block'),
      this.#pages(height, signal, reads, null),
    ]);
    reads.push(read);
    return { block, pages, reads, from: new Set(reads.map((r) => r.upstream)) };
  }

  /** A whole reading from one upstream not in `tried` (its record, then its pages); null when none is left. */
  async #another(height: number, signal: AbortSignal, tried: ReadonlySet<string>): Promise<ReadVersion | null> {
    const req = this.#req(blockDetail.path, `h=${height}`);
    const first = await this.#reads.readFrom(req, signal, 'block', [...tried]);
    if (first === null) return null;
    const reads: Fetched[] = [first];
    const from = new Set([first.upstream]);
    try {
      const pages = await this.#pages(height, signal, reads, first.upstream);
      return { block: dataOf(req, first), pages, reads, from };
    } catch {
      return { block: {}, pages: [], reads, from };
    }
  }

  /**
   * The first reading of block `height` that agrees with itself and whose
   * hash a second source vouches for: `known` (the block list's hash for that
   * height, if it lists it: read meanwhile) or another upstream's agreeing reading.
   */
  async verified(height: number, signal: AbortSignal, listed: Promise<string | undefined>): Promise<ReadVersion> {
    const [first, known] = await Promise.all([this.#reading(height, signal), listed]);
    const problem = mismatch(height, first, known, PAGE_SIZE);
    if (problem === null) return first;
    const vouched = new Set<string>(known === undefined || known === '' ? [] : [known]);
    if (mismatch(height, first, undefined, PAGE_SIZE) === null) vouched.add(hashOf(first.block));
    const tried = new Set(first.from);
    for (;;) {
      const other = await this.#another(height, signal, tried);
      if (other === null) throw new CrossCheckFailed(`block ${height}: ${problem}; no other upstream agrees`);
      for (const u of other.from) tried.add(u);
      if (mismatch(height, other, undefined, PAGE_SIZE) !== null) continue;
      const hash = hashOf(other.block);
      if (vouched.has(hash)) return other;
      vouched.add(hash);
    }
  }

  /**
   * `tx/detail` of a transfer; one mined in block `height` (null:
   * pending) must say so, else another upstream is asked once.
   */
  async transfer(hash: string, signal: AbortSignal, height: number | null): Promise<{ data: Rec; read: Fetched }> {
    const got = await this.get(txDetail.path, `hash=${hash}`, signal, 'block');
    if (height === null || got.data['block_height'] === height) return got;
    const req = this.#req(txDetail.path, `hash=${hash}`);
    const other = await this.#reads.readFrom(req, signal, 'block', [got.read.upstream]);
    const data = other === null ? null : dataOf(req, other);
    if (other === null || data === null || data['block_height'] !== height)
      throw new CrossCheckFailed(`tx/detail ${hash}: not in block ${height}`);
    return { data, read: other };
  }
}
