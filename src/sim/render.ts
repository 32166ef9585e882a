/** JSON text builders. Records are concatenated strings (needed for `4842503.0`-style numbers, and fast). */
import { CHAIN_ID } from './constants.js';
import { blockTime, type TxCore } from './records/tx.js';

const dayCache = new Map<number, string>();

/** YYYYMMDD (UTC) of a Unix-seconds time. */
export function ymd(ts: number): string {
  const day = Math.floor(ts / 86400);
  let s = dayCache.get(day);
  if (s === undefined) {
    s = new Date(day * 86400000).toISOString().slice(0, 10).replace(/-/g, '');
    if (dayCache.size > 20000) dayCache.clear();
    dayCache.set(day, s);
  }
  return s;
}

/** ISO 8601 local date-time without zone (UTC clock), e.g. 2020-07-18T10:08:00. */
export function isoLocal(ts: number): string {
  return new Date(ts * 1000).toISOString().slice(0, 19);
}

export function envelope(data: string): string {
  return '{"code":0,"msg":"success","data":' + data + '}';
}

export function errorBody(code: number, msg: string): string {
  return '{"code":' + code + ',"msg":' + JSON.stringify(msg) + ',"data":null}';
}

/** Integer written with a ".0" fraction, as the real service does for block/max and holders rank. */
export function dotZero(n: number): string {
  return n + '.0';
}

/** Transaction record (2.3.1); status 2 ⇒ null block fields. */
export function txRecord(tx: TxCore, status: number): string {
  const p = status === 2;
  const bts = blockTime(tx.h);
  return (
    '{"tx_hash":"' +
    tx.hash +
    '","chainId":' +
    CHAIN_ID +
    ',"address_from":"' +
    tx.from +
    '","address_to":"' +
    tx.to +
    '","value":"' +
    tx.value +
    '","nonce":' +
    tx.nonce +
    ',"timestamp":' +
    tx.ts +
    (p
      ? ',"block_timestamp":null,"block_date":null'
      : ',"block_timestamp":' + bts + ',"block_date":"' + ymd(bts) + '"') +
    ',"tx_type":"' +
    tx.type +
    '","gas_price":"' +
    tx.gasPrice +
    '","gas_limit":' +
    tx.gasLimit +
    (p
      ? ',"gas_used":null,"contract_address":null'
      : ',"gas_used":' + tx.gasUsed + ',"contract_address":"' + tx.deployed + '"') +
    ',"status":' +
    status +
    ',"execute_error":"' +
    tx.execError +
    '","execute_result":' +
    (p ? '""' : tx.execResultJson) +
    ',"block_height":' +
    (p ? 'null' : tx.h) +
    '}'
  );
}

function txDetailTail(tx: TxCore, status: number): string {
  const p = status === 2;
  return (
    '"tx_hash":"' +
    tx.hash +
    '","address_main":"' +
    tx.from +
    '","address_supporting":"' +
    tx.recipient +
    '","direction":"send","tx_type":"' +
    tx.type +
    '","timestamp":' +
    tx.ts +
    ',"block_timestamp":' +
    (p ? 'null' : blockTime(tx.h)) +
    ',"contract_address":"' +
    (tx.token ? tx.token.contract : tx.deployed) +
    '","tx_value":"' +
    tx.value +
    '","real_value":"' +
    tx.realValue +
    '","gas_price":"' +
    tx.gasPrice +
    '","gas_limit":' +
    tx.gasLimit +
    ',"gas_used":' +
    (p ? 'null' : tx.gasUsed) +
    ',"status":' +
    status +
    ',"block_height":' +
    (p ? 'null' : tx.h) +
    ',"is_nrc20":' +
    (tx.token ? 'true' : 'false') +
    '}'
  );
}

/** Transaction detail (2.3.2, tx/detail). Pending ⇒ block_timestamp, gas_used, block_height null. */
export function txDetailRecord(tx: TxCore, status: number): string {
  const data = tx.payload ? Buffer.from(tx.payload).toString('base64') : '';
  return (
    '{"ext_info":{"data":"' +
    data +
    '","execute_error":"' +
    tx.execError +
    '","execute_result":' +
    (status === 2 ? '""' : tx.execResultJson) +
    '},' +
    txDetailTail(tx, status)
  );
}

/** Token transaction (2.3.2, token/tx/list item). */
export function tokenTxRecord(tx: TxCore, status: number, tokenJson: string): string {
  return '{"token":' + tokenJson + ',' + txDetailTail(tx, status);
}

/** NRC20 list item (2.3.3); ms timestamps. */
export function nrc20Record(tx: TxCore, status: number, blockHashHex: string, nowMs: number): string {
  const tms = blockTime(tx.h) * 1000;
  const t = tx.token!;
  return (
    '{"hash":"' +
    tx.hash +
    '","block":{"hash":"' +
    blockHashHex +
    '","height":' +
    tx.h +
    '},"from":{"hash":"' +
    tx.from +
    '"},"to":{"hash":"' +
    tx.recipient +
    '"},"status":' +
    status +
    ',"value":"' +
    tx.realValue +
    '","nonce":' +
    tx.nonce +
    ',"timestamp":' +
    tms +
    ',"currentTimestamp":' +
    nowMs +
    ',"timeDiff":' +
    (nowMs - tms) +
    ',"type":"call","gasPrice":"' +
    tx.gasPrice +
    '","gasLimit":"' +
    tx.gasLimit +
    '","gasUsed":"' +
    tx.gasUsed +
    '","data":' +
    JSON.stringify(tx.payload) +
    ',"contractAddress":"","executeError":"' +
    tx.execError +
    '","tokenName":"' +
    t.name +
    '","decimal":' +
    t.decimals +
    ',"txFee":"' +
    feeOf(tx) +
    '"}'
  );
}

function feeOf(tx: TxCore): string {
  const f = Number(tx.gasPrice) * tx.gasUsed;
  return f <= Number.MAX_SAFE_INTEGER ? String(f) : (BigInt(tx.gasPrice) * BigInt(tx.gasUsed)).toString();
}

export interface PageLinks {
  /** e.g. "http://host/tx/listByAddress?" */
  base: string;
  /** query text before page, e.g. "address=n1..&" (or "") */
  before: string;
  /** query text after page_size, e.g. "&token=NAX" (or "") */
  after: string;
}

export interface PageInfo {
  page: number;
  pageSize: number;
  count: number;
  totalPage: number;
}

export function pageInfo(page: number, pageSize: number, count: number, totalPageCap = Infinity): PageInfo {
  return { page, pageSize, count, totalPage: Math.min(Math.ceil(count / pageSize), totalPageCap) };
}

function link(l: PageLinks, page: number, pageSize: number): string {
  return '"' + l.base + l.before + 'page=' + page + '&page_size=' + pageSize + l.after + '"';
}

/** Paged result (2.2). `extra` is appended after list (e.g. ',"server_timestamp":123'). */
export function paged(l: PageLinks, pi: PageInfo, items: string, extra: string): string {
  const next = pi.page < pi.totalPage ? link(l, pi.page + 1, pi.pageSize) : 'null';
  const prev = pi.page > 1 ? link(l, pi.page - 1, pi.pageSize) : 'null';
  return (
    '{"next":' +
    next +
    ',"previous":' +
    prev +
    ',"count":' +
    pi.count +
    ',"total_page":' +
    pi.totalPage +
    ',"current_page":' +
    pi.page +
    ',"list":[' +
    items +
    ']' +
    extra +
    '}'
  );
}
