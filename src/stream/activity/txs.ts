/**
 * The transaction records of one block, read through the resolver as
 * ordinary cached requests (`tx/list?block_height=N`, every page at the
 * largest page size): the block reader fetched the same pages, so on a
 * replica that read them, or shares the Redis tier, they cost no upstream
 * request. Each record is kept as the upstream's bytes.
 */
import { canonicalize } from '../../catalogue/canonicalize.js';
import type { CanonicalRequest, EndpointDef } from '../../catalogue/types.js';
import type { ParamLimits } from '../../endpoints/types.js';
import type { CacheEntry } from '../../cache/types.js';
import { forEachItem, locate, numberAt } from '../../transform/json-scan.js';
import type { TxRecord } from './history.js';

export interface TxReader {
  txList: EndpointDef;
  limits: ParamLimits;
  resolve(req: CanonicalRequest): Promise<{ entry: CacheEntry }>;
}

/** Pages read for one block at most (100 records each at the API's largest page size). */
const MAX_PAGES = 50;

function page(body: Buffer, out: Buffer[]): number {
  const list = locate(body, ['data', 'list']);
  if (list !== null) forEachItem(body, list.start, (r) => void out.push(body.subarray(r.start, r.end)));
  const total = locate(body, ['data', 'total_page']);
  const n = total === null ? null : numberAt(body, total);
  return n !== null && Number.isSafeInteger(n) ? n : 1;
}

/** Every transaction record of block `height`; throws when a page cannot be read. */
async function blockTxs(r: TxReader, height: number): Promise<Buffer[]> {
  const size = Math.min(r.limits.maxPageSize, 100);
  const get = async (p: number, out: Buffer[]): Promise<number> =>
    page(
      (await r.resolve(canonicalize(r.txList, `block_height=${height}&page=${p}&page_size=${size}`, r.limits))).entry
        .body,
      out,
    );
  const first: Buffer[] = [];
  const pages = Math.min(await get(1, first), MAX_PAGES);
  if (pages <= 1) return first;
  const rest = await Promise.all(
    Array.from({ length: pages - 1 }, async (_, i) => {
      const out: Buffer[] = [];
      await get(i + 2, out);
      return out;
    }),
  );
  return first.concat(...rest);
}

/** The entities of `watched` a record names (anywhere in it: parties, contract, NRC20 arguments inside the payload). */
/** The transactions of block `height` naming any of `matched`, each with those names (copied out of the page). */
export async function txsNaming(r: TxReader, height: number, matched: ReadonlySet<string>): Promise<TxRecord[]> {
  const txs: TxRecord[] = [];
  for (const bytes of await blockTxs(r, height)) {
    const names = namesIn(bytes, matched);
    // Copied: a slice would keep the whole tx/list page alive.
    if (names.length > 0) txs.push({ bytes: Buffer.from(bytes), names });
  }
  return txs;
}

function namesIn(record: Buffer, watched: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const e of watched) if (record.indexOf(e, 0, 'latin1') >= 0) out.push(e);
  return out;
}
