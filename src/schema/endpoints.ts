/** Whole-response schemas per endpoint path. */
import {
  AddressCountItem, AddressInfo, Block, BlockDetail, BlockMax, ChainSummary, Contract, Holder, NaxProfit, NaxRecord, NaxSummary,
  Nrc20Result, Token, TokenHolder, TokenTx, Transaction, TxCountItem, TxCountToday, TxDetail, envelopeOf, pagedOf,
} from './records.js';
import { arrayOf, type FieldSpec, type Schema } from './validate.js';

const DATA: Readonly<Record<string, FieldSpec>> = {
  'tx/nrc20': Nrc20Result,
  'tx/detail': TxDetail,
  'tx/list': pagedOf(Transaction, { serverTimestamp: true }, 'TransactionPage'),
  'tx/list/pending': pagedOf(Transaction, { serverTimestamp: true }, 'PendingPage'),
  'tx/listByAddress': pagedOf(Transaction, { serverTimestamp: true }, 'AddressTransactionPage'),
  'tx/count/history': arrayOf(TxCountItem),
  'tx/count/today': TxCountToday,
  'block/list': pagedOf(Block, {}, 'BlockPage'),
  'block/detail': BlockDetail,
  'block/max': BlockMax,
  contracts: pagedOf(Contract, {}, 'ContractPage'),
  'token/list': arrayOf(Token),
  'token/detail': Token,
  'token/tx/list': pagedOf(TokenTx, { serverTimestamp: true, token: true }, 'TokenTxPage'),
  'token/holders': pagedOf(TokenHolder, {}, 'TokenHolderPage'),
  holders: pagedOf(Holder, {}, 'HolderPage'),
  'nax/history': pagedOf(NaxRecord, {}, 'NaxHistoryPage'),
  'nax/summary': NaxSummary,
  'nax/profits': pagedOf(NaxProfit, {}, 'NaxProfitPage'),
  'address/info': AddressInfo,
  'address/count/history': arrayOf(AddressCountItem),
  'chain/summary': ChainSummary,
};

/** The 22 endpoint paths (no leading slash). */
export const ENDPOINT_PATHS: readonly string[] = Object.keys(DATA);

const cache = new Map<string, Schema>();

/**
 * Schema of a successful response body of an endpoint. Accepts "tx/list", "/tx/list",
 * "/tx/list?page=2" or a full URL; undefined for unknown paths.
 */
export function schemaForEndpoint(path: string): Schema | undefined {
  let p = path;
  const proto = p.indexOf('://');
  if (proto >= 0) p = p.slice(p.indexOf('/', proto + 3) >>> 0);
  const q = p.indexOf('?');
  if (q >= 0) p = p.slice(0, q);
  p = p.replace(/^\/+|\/+$/g, '');
  const data = DATA[p];
  if (data === undefined) return undefined;
  let s = cache.get(p);
  if (!s) {
    s = envelopeOf(data, 'Response ' + p);
    cache.set(p, s);
  }
  return s;
}

/** Spec of the `data` member of a successful answer of an endpoint (no leading slash); undefined for unknown paths. */
export function dataSpecOf(endpoint: string): FieldSpec | undefined {
  return DATA[endpoint];
}
