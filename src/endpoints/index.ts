/**
 * The registry: every endpoint module, once. The endpoint names are derived
 * from it, so a table typed by EndpointName must cover each module.
 */
import { addressCountHistory } from './address-count-history.js';
import { addressInfo } from './address-info.js';
import { blockDetail } from './block-detail.js';
import { blockList } from './block-list.js';
import { blockMax } from './block-max.js';
import { chainSummary } from './chain-summary.js';
import { contracts } from './contracts.js';
import { holders } from './holders.js';
import { naxHistory } from './nax-history.js';
import { naxProfits } from './nax-profits.js';
import { naxSummary } from './nax-summary.js';
import { tokenDetail } from './token-detail.js';
import { tokenHolders } from './token-holders.js';
import { tokenList } from './token-list.js';
import { tokenTxList } from './token-tx-list.js';
import { txCountHistory } from './tx-count-history.js';
import { txCountToday } from './tx-count-today.js';
import { txDetail } from './tx-detail.js';
import { txList } from './tx-list.js';
import { txListByAddress } from './tx-list-by-address.js';
import { txListPending } from './tx-list-pending.js';
import { txNrc20 } from './tx-nrc20.js';

export const ENDPOINTS = [
  txNrc20,
  txDetail,
  txList,
  txListPending,
  txListByAddress,
  txCountHistory,
  txCountToday,
  blockList,
  blockDetail,
  blockMax,
  contracts,
  tokenList,
  tokenDetail,
  tokenTxList,
  tokenHolders,
  holders,
  naxHistory,
  naxSummary,
  naxProfits,
  addressInfo,
  addressCountHistory,
  chainSummary,
] as const;

/** Endpoint name = API path without the leading slash; also the metrics label. */
export type EndpointName = (typeof ENDPOINTS)[number]['path'];

export const ENDPOINT_NAMES: readonly EndpointName[] = ENDPOINTS.map((m) => m.path);

const BY_NAME: ReadonlyMap<string, (typeof ENDPOINTS)[number]> = new Map(ENDPOINTS.map((m) => [m.path, m]));

/** The module of an endpoint name (any string: callers may hold a path from outside). */
export function moduleOf(name: string): (typeof ENDPOINTS)[number] | undefined {
  return BY_NAME.get(name);
}
