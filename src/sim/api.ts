/**
 * The 22 endpoints as pure functions of (chain, query, clock) → {status, body}; HTTP-free so
 * they can be benchmarked and tested directly. See README.md for the error behaviour.
 */
import type { SimChain } from './chain.js';
import {
  HOLDERS_MAX_PAGES,
  MAX_PAGE_SIZE,
  NRC20_MAX_DISPLAY,
  TOKEN_LIST_JSON,
  tokenByContract,
  tokenByName,
  type TokenDef,
} from './constants.js';
import { blockHash, decodeBlockHash, decodeTxHash, isAddress } from './ids.js';
import { addressInfo, contractCount, contractRecord, holderRecord, holdersCount } from './records/address.js';
import { blockDetailRecord, blockRecord } from './records/block.js';
import {
  currentStageEnd,
  estimateText,
  lastDistributed,
  lastStage,
  naxRecord,
  pledged,
  profitList,
  profitRecord,
  totalDistributedText,
  totalNas,
} from './records/nax.js';
import { addressCountHistory, txCountHistory, txCountToday } from './records/stats.js';
import { tokenHolderCount, tokenHolderRecord } from './records/token.js';
import type { Stream } from './records/layout.js';
import { account, limitsAt, listPage } from './records/ledger.js';
import { deriveTx, inChainTime, normalAddressCount, tokenTxCount, tokenTxHeight, txStatus } from './records/tx.js';
import { locateTx, txCountAt } from './records/txcount.js';
import {
  dotZero,
  envelope,
  errorBody,
  nrc20Record,
  paged,
  pageInfo,
  tokenTxRecord,
  txDetailRecord,
  txRecord,
  type PageLinks,
} from './render.js';

export type Query = Record<string, string | string[] | undefined>;

export interface ApiContext {
  chain: SimChain;
  nowMs: number;
  /** advertised base URL, no trailing slash */
  baseUrl: string;
}

export interface ApiResult {
  status: number;
  body: string;
}

export type Handler = (q: Query, ctx: ApiContext) => ApiResult;

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    msg: string,
  ) {
    super(msg);
  }
}

const badParam = (name: string): ApiError => new ApiError(400, 400, 'invalid parameter: ' + name);
const missingParam = (name: string): ApiError => new ApiError(400, 400, 'missing parameter: ' + name);
const notFound = (): ApiError => new ApiError(404, 404, 'not found');

function str(q: Query, name: string): string | undefined {
  const v = q[name];
  if (Array.isArray(v)) throw badParam(name);
  return v;
}

function int(q: Query, name: string, def: number, min: number): number {
  const v = str(q, name);
  if (v === undefined) return def;
  if (!/^\d{1,9}$/.test(v)) throw badParam(name);
  const n = Number(v);
  if (n < min) throw badParam(name);
  return n;
}

function paging(q: Query): { page: number; pageSize: number } {
  return { page: int(q, 'page', 1, 1), pageSize: Math.min(int(q, 'page_size', 20, 1), MAX_PAGE_SIZE) };
}

function address(q: Query): string {
  const a = str(q, 'address');
  if (a === undefined || a === '') throw missingParam('address');
  if (!isAddress(a)) throw badParam('address');
  return a;
}

function links(ctx: ApiContext, path: string, before = '', after = ''): PageLinks {
  return { base: ctx.baseUrl + '/' + path + '?', before, after };
}

const ok = (data: string): ApiResult => ({ status: 200, body: envelope(data) });
const ts = (ctx: ApiContext): string => ',"server_timestamp":' + ctx.nowMs;

/** Index range [from, to) of a page over count items. */
function range(page: number, pageSize: number, count: number): [number, number] {
  const from = (page - 1) * pageSize;
  return [Math.min(from, count), Math.min(from + pageSize, count)];
}

function txList(q: Query, ctx: ApiContext): ApiResult {
  const { page, pageSize } = paging(q);
  const { chain } = ctx;
  const seed = chain.seed;
  const head = chain.head();
  const bh = str(q, 'block_height');
  let items = '';
  if (bh !== undefined) {
    if (!/^\d{1,9}$/.test(bh) || Number(bh) < 1) throw badParam('block_height');
    const h = Number(bh);
    const count = h <= head ? txCountAt(seed, h) : 0;
    const [from, to] = range(page, pageSize, count);
    for (let k = from; k < to; k++) {
      const tx = deriveTx(seed, h, count - 1 - k);
      items += (k > from ? ',' : '') + txRecord(tx, txStatus(tx, head));
    }
    const l = links(ctx, 'tx/list', 'block_height=' + h + '&');
    return ok(paged(l, pageInfo(page, pageSize, count), items, ts(ctx)));
  }
  const count = chain.txTotal();
  const [from, to] = range(page, pageSize, count);
  if (to > from) {
    let [h, i] = locateTx(seed, count - 1 - from);
    for (let k = from; k < to; k++) {
      const tx = deriveTx(seed, h, i, count - 1 - k - h - i + 1); // tx number n = extrasBefore(h) + h - 1 + i
      items += (k > from ? ',' : '') + txRecord(tx, tx.failed ? 0 : 1);
      if (--i < 0) {
        h--;
        if (h < 1) break;
        i = txCountAt(seed, h) - 1;
      }
    }
  }
  return ok(paged(links(ctx, 'tx/list'), pageInfo(page, pageSize, count), items, ts(ctx)));
}

function pendingList(q: Query, ctx: ApiContext): ApiResult {
  const { page, pageSize } = paging(q);
  const seed = ctx.chain.seed;
  const { heights, indexes, extrasBefore } = ctx.chain.pending();
  const count = heights.length;
  const [from, to] = range(page, pageSize, count);
  let items = '';
  for (let k = from; k < to; k++)
    items += (k > from ? ',' : '') + txRecord(deriveTx(seed, heights[k]!, indexes[k]!, extrasBefore[k]!), 2);
  return ok(paged(links(ctx, 'tx/list/pending'), pageInfo(page, pageSize, count), items, ts(ctx)));
}

function nrcFlag(q: Query): boolean | undefined {
  const v = str(q, 'is_nrc20');
  if (v === undefined) return undefined;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0' || v === '') return false;
  throw badParam('is_nrc20');
}

/** Streams of an address's NRC20 transfers (nrc) or of its other txs. */
function streamsOf(seed: number, addr: string, nrc: boolean): Stream[] {
  return account(seed, addr).streams.filter((s) => s.nrc === nrc);
}

function listByAddress(q: Query, ctx: ApiContext): ApiResult {
  const addr = address(q);
  const nrc = nrcFlag(q);
  const { page, pageSize } = paging(q);
  const seed = ctx.chain.seed;
  const head = ctx.chain.head();
  const from = (page - 1) * pageSize;
  const p = listPage(seed, streamsOf(seed, addr, nrc === true), head, from, from + pageSize, true);
  let items = '';
  for (const [h, i, m] of p.items) {
    const tx = deriveTx(seed, h, i, m < 0 ? -1 : m - i + 1);
    items += (items ? ',' : '') + txRecord(tx, txStatus(tx, head));
  }
  const before =
    'address=' + addr + '&' + (nrc === undefined ? '' : 'is_nrc20=' + encodeURIComponent(str(q, 'is_nrc20')!) + '&');
  return ok(paged(links(ctx, 'tx/listByAddress', before), pageInfo(page, pageSize, p.count), items, ts(ctx)));
}

function nrc20(q: Query, ctx: ApiContext): ApiResult {
  const addr = address(q);
  const { page, pageSize } = paging(q);
  const seed = ctx.chain.seed;
  const head = ctx.chain.head();
  const from = (page - 1) * pageSize;
  const streams = streamsOf(seed, addr, true);
  const p = listPage(seed, streams, head, from, Math.min(from + pageSize, NRC20_MAX_DISPLAY), false);
  const cnt = Math.min(p.count, NRC20_MAX_DISPLAY);
  let items = '';
  for (const [h, i, m] of p.items) {
    const tx = deriveTx(seed, h, i, m < 0 ? -1 : m - i + 1);
    items += (items ? ',' : '') + nrc20Record(tx, txStatus(tx, head), blockHash(seed, h), ctx.nowMs);
  }
  return ok(
    '{"txnList":[' +
      items +
      '],"totalPage":' +
      Math.ceil(cnt / pageSize) +
      ',"maxDisplayCnt":' +
      NRC20_MAX_DISPLAY +
      ',"currentPage":' +
      page +
      ',"txnCnt":' +
      cnt +
      '}',
  );
}

function txDetail(q: Query, ctx: ApiContext): ApiResult {
  const hash = str(q, 'hash');
  if (hash === undefined || hash === '') throw missingParam('hash');
  if (!/^[0-9a-fA-F]{64}$/.test(hash)) throw badParam('hash');
  const seed = ctx.chain.seed;
  const pos = decodeTxHash(seed, hash.toLowerCase());
  if (!pos || pos[0] < 1 || pos[1] >= txCountAt(seed, pos[0])) throw notFound();
  const tx = deriveTx(seed, pos[0], pos[1]);
  const status = txStatus(tx, ctx.chain.head());
  if (status < 0) throw notFound();
  return ok(txDetailRecord(tx, status));
}

function days(q: Query, def: number): number {
  return Math.min(int(q, 'days', def, 1), 366);
}

function blockList(q: Query, ctx: ApiContext): ApiResult {
  const { page, pageSize } = paging(q);
  const { chain } = ctx;
  const head = chain.head();
  const [from, to] = range(page, pageSize, head);
  let items = '';
  for (let k = from; k < to; k++) {
    const h = head - k;
    items += (k > from ? ',' : '') + blockRecord(chain.seed, h, chain.isFinal(h));
  }
  return ok(paged(links(ctx, 'block/list'), pageInfo(page, pageSize, head), items, ''));
}

function blockDetail(q: Query, ctx: ApiContext): ApiResult {
  const v = str(q, 'h');
  if (v === undefined || v === '') throw missingParam('h');
  const { chain } = ctx;
  let h: number;
  if (/^\d{1,12}$/.test(v)) h = Number(v);
  else if (/^[0-9a-fA-F]{64}$/.test(v)) h = decodeBlockHash(chain.seed, v.toLowerCase());
  else throw badParam('h');
  if (h < 1 || h > chain.head()) throw notFound();
  return ok(blockDetailRecord(chain.seed, h, chain.isFinal(h), ctx.nowMs));
}

function contracts(q: Query, ctx: ApiContext): ApiResult {
  const { page, pageSize } = paging(q);
  const seed = ctx.chain.seed;
  const count = contractCount(seed, ctx.chain.head());
  const [from, to] = range(page, pageSize, count);
  let items = '';
  for (let k = from; k < to; k++) items += (k > from ? ',' : '') + contractRecord(seed, count - 1 - k);
  return ok(paged(links(ctx, 'contracts'), pageInfo(page, pageSize, count), items, ''));
}

/** token=NAME or contract=ADDRESS; returns the token and the link parameter. */
function tokenParam(q: Query): [TokenDef, string] {
  const name = str(q, 'token');
  const contract = str(q, 'contract');
  if (name !== undefined && name !== '') {
    const t = tokenByName(name);
    if (!t) throw notFound();
    return [t, 'token=' + encodeURIComponent(name)];
  }
  if (contract !== undefined && contract !== '') {
    const t = tokenByContract(contract);
    if (!t) {
      if (!isAddress(contract)) throw badParam('contract');
      throw notFound();
    }
    return [t, 'contract=' + contract];
  }
  throw missingParam('token');
}

function tokenDetail(q: Query): ApiResult {
  return ok(tokenParam(q)[0].json);
}

function tokenTxList(q: Query, ctx: ApiContext): ApiResult {
  const [t, param] = tokenParam(q);
  const { page, pageSize } = paging(q);
  const seed = ctx.chain.seed;
  const head = ctx.chain.head();
  const count = tokenTxCount(t.index, head);
  const [from, to] = range(page, pageSize, count);
  let items = '';
  for (let k = from; k < to; k++) {
    const tx = deriveTx(seed, tokenTxHeight(t.index, count - 1 - k), 0);
    items += (k > from ? ',' : '') + tokenTxRecord(tx, txStatus(tx, head), t.json);
  }
  return ok(
    paged(
      links(ctx, 'token/tx/list', '', '&' + param),
      pageInfo(page, pageSize, count),
      items,
      ts(ctx) + ',"token":' + t.json,
    ),
  );
}

function tokenHolders(q: Query, ctx: ApiContext): ApiResult {
  const [t, param] = tokenParam(q);
  const { page, pageSize } = paging(q);
  const count = tokenHolderCount(t, ctx.chain.head());
  const [from, to] = range(page, pageSize, count);
  let items = '';
  for (let k = from; k < to; k++) items += (k > from ? ',' : '') + tokenHolderRecord(ctx.chain.seed, t, k + 1);
  return ok(paged(links(ctx, 'token/holders', '', '&' + param), pageInfo(page, pageSize, count), items, ''));
}

function holders(q: Query, ctx: ApiContext): ApiResult {
  const { page, pageSize } = paging(q);
  const head = ctx.chain.head();
  const seed = ctx.chain.seed;
  const count = holdersCount(seed, head);
  const pi = pageInfo(page, pageSize, count, HOLDERS_MAX_PAGES);
  const [from, to] = range(page, pageSize, page <= pi.totalPage ? count : 0);
  let items = '';
  const lim = limitsAt(seed, head);
  for (let k = from; k < to; k++) items += (k > from ? ',' : '') + holderRecord(seed, k + 1, head, lim);
  return ok(paged(links(ctx, 'holders'), pi, items, ''));
}

function naxHistory(q: Query, ctx: ApiContext): ApiResult {
  const { page, pageSize } = paging(q);
  const sMax = lastStage(ctx.chain.head());
  const count = sMax + 1;
  const [from, to] = range(page, pageSize, count);
  let items = '';
  for (let k = from; k < to; k++) items += (k > from ? ',' : '') + naxRecord(ctx.chain.seed, sMax - k);
  return ok(paged(links(ctx, 'nax/history'), pageInfo(page, pageSize, count), items, ''));
}

function naxSummary(_q: Query, ctx: ApiContext): ApiResult {
  const seed = ctx.chain.seed;
  const head = ctx.chain.head();
  const s = lastStage(head);
  let list = '';
  for (let k = s; k >= 0 && k > s - 15; k--) list += (k < s ? ',' : '') + naxRecord(seed, k);
  return ok(
    '{"last_distributed_nax":"' +
      (s >= 0 ? lastDistributed(seed, s) : '0') +
      '","total_distributed_nax":"' +
      (s >= 0 ? totalDistributedText(seed, s) : '0') +
      '","current_pledged_nas":"' +
      pledged(seed, s + 1) +
      '","current_total_nas":"' +
      totalNas(seed, s + 1) +
      '","estimate_nax":"' +
      estimateText(seed, s + 1) +
      '","end_height":' +
      currentStageEnd(head) +
      ',"list":[' +
      list +
      ']}',
  );
}

function naxProfits(q: Query, ctx: ApiContext): ApiResult {
  const addr = address(q);
  const { page, pageSize } = paging(q);
  const seed = ctx.chain.seed;
  const l = profitList(seed, addr, ctx.chain.head());
  const [from, to] = range(page, pageSize, l.count);
  let items = '';
  for (let k = from; k < to; k++) items += (k > from ? ',' : '') + profitRecord(seed, l, addr, l.count - 1 - k);
  return ok(paged(links(ctx, 'nax/profits', 'address=' + addr + '&'), pageInfo(page, pageSize, l.count), items, ''));
}

function chainSummary(_q: Query, ctx: ApiContext): ApiResult {
  const head = ctx.chain.head();
  const seed = ctx.chain.seed;
  return ok(
    '{"block_count":' +
      head +
      ',"tx_count":' +
      ctx.chain.txTotal() +
      ',"contract_count":' +
      contractCount(seed, head) +
      ',"normal_address_count":' +
      normalAddressCount(head) +
      '}',
  );
}

/** The 22 endpoints, keyed by path without leading slash. */
export const ENDPOINTS: Readonly<Record<string, Handler>> = {
  'tx/nrc20': nrc20,
  'tx/detail': txDetail,
  'tx/list': txList,
  'tx/list/pending': pendingList,
  'tx/listByAddress': listByAddress,
  'tx/count/history': (q, c) => ok(txCountHistory(c.chain.seed, c.chain.head(), days(q, 15))),
  'tx/count/today': (_q, c) => ok('{"count":' + txCountToday(c.chain.seed, c.chain.head()) + '}'),
  'block/list': blockList,
  'block/detail': blockDetail,
  'block/max': (_q, c) => ok('{"height":' + dotZero(c.chain.head()) + ',"server_timestamp":' + c.nowMs + '}'),
  contracts,
  'token/list': () => ok(TOKEN_LIST_JSON),
  'token/detail': tokenDetail,
  'token/tx/list': tokenTxList,
  'token/holders': tokenHolders,
  holders,
  'nax/history': naxHistory,
  'nax/summary': naxSummary,
  'nax/profits': naxProfits,
  'address/info': (q, c) => ok(addressInfo(c.chain.seed, address(q), c.chain.head(), c.chain.internalTransfers)),
  'address/count/history': (q, c) => ok(addressCountHistory(c.chain.seed, c.chain.head(), days(q, 30))),
  'chain/summary': chainSummary,
};

/** Runs an endpoint, mapping parameter and lookup errors to error envelopes. */
export function runEndpoint(path: string, q: Query, ctx: ApiContext): ApiResult {
  const h = ENDPOINTS[path];
  if (!h) return { status: 404, body: errorBody(404, 'not found') };
  try {
    return inChainTime(ctx.chain.genesisTime, () => h(q, ctx));
  } catch (e) {
    if (e instanceof ApiError) return { status: e.status, body: errorBody(e.code, e.message) };
    throw e;
  }
}
