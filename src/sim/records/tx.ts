/**
 * Transaction derivation. Transaction (h, i) is a pure function of (seed, h, i); who it names
 * (sender, recipient, called or deployed contract) comes from layout.ts, so every party can
 * list it (ledger.ts). Index 0 is the block's "slot" tx, other indexes are "extras".
 */
import {
  BLOCK_SECONDS,
  GENESIS_TIME,
  TOKENS,
  type TokenDef,
  ADDRESS_EVERY_BLOCKS,
  PENDING_WINDOW,
} from '../constants.js';
import { contractAddress, normalAddress, txHash } from '../ids.js';
import { hash4, scaled } from '../rng.js';
import {
  contractAddressOf,
  deployedAt,
  extraSender,
  extraTarget,
  POD_CONTRACT,
  sendsExtras,
  sentUpTo,
  slotRecipient,
  slotSender,
} from './layout.js';
import { entryOf } from './pending.js';
import { callGas, DEPLOY_GAS, podGas, TRANSFER_GAS, transferFails, transferUnits, units } from './value.js';
import { extrasBefore } from './txcount.js';

const D_TX = 0x7478;

type TxType = 'binary' | 'call' | 'pod' | 'deploy';

export interface TxCore {
  h: number;
  i: number;
  hash: string;
  from: string;
  /** address_to of the Transaction record (the contract for calls) */
  to: string;
  /** receiving address (token recipient for NRC20 transfers) */
  recipient: string;
  value: string;
  nonce: number;
  /** submission time, Unix seconds (occasionally 2147483647, a recorded quirk) */
  ts: number;
  /** height of the head when the tx entered the pending pool */
  entry: number;
  type: TxType;
  gasPrice: string;
  gasLimit: number;
  gasUsed: number;
  token: TokenDef | undefined;
  /** token amount for NRC20 transfers, else the native value */
  realValue: string;
  failed: boolean;
  execError: string;
  /** JSON text of the execute_result string */
  execResultJson: string;
  /** call payload JSON text ('' for binary) */
  payload: string;
  /** contract a deploy tx creates ('' otherwise) */
  deployed: string;
}

/**
 * Chain time of the chain being rendered. Rendering is synchronous, so
 * `inChainTime` sets it for the duration of one call; outside any call it is
 * the recorded-fixture alignment.
 */
let genesis = GENESIS_TIME;

/** Runs `render` with block h timed at `genesisTime + 15 h`. */
export function inChainTime<T>(genesisTime: number, render: () => T): T {
  const outer = genesis;
  genesis = genesisTime;
  try {
    return render();
  } finally {
    genesis = outer;
  }
}

/** Unix seconds of the current chain's block 0. */
export function genesisTime(): number {
  return genesis;
}

export function blockTime(h: number): number {
  return genesis + h * BLOCK_SECONDS;
}

export function normalAddressCount(head: number): number {
  return Math.floor(head / ADDRESS_EVERY_BLOCKS) + 1;
}

function tokenOfHeight(h: number): TokenDef | undefined {
  return (h & 7) >= 4 ? TOKENS[(h >>> 3) % TOKENS.length] : undefined;
}

/** Token transfer m (0-based, oldest first) of token t is at this height (index 0). */
export function tokenTxHeight(t: number, m: number): number {
  const j = t + TOKENS.length * Math.floor(m / 4);
  return 8 * j + 4 + (m % 4);
}

/** Number of confirmed transfers of token t at head. */
export function tokenTxCount(t: number, head: number): number {
  let lo = 0;
  let hi = Math.ceil(head / 12) + 8; // tokenTxHeight(t, m) >= 12 m
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (tokenTxHeight(t, mid) <= head) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const GAS_PRICE = '20000000000';

/** Amount of the NRC20 transfer at slot h. */
export function transferAmount(seed: number, h: number, decimals: number, r2 = hash4(seed, D_TX, h, 0, 2)): string {
  return scaled(1 + ((r2 >>> 8) % 4999), decimals);
}

/** Last block's extrasBefore, so the txs of one block compute it once. */
let xbMemo = { seed: -1, h: -1, xb: 0 };
function extrasBeforeMemo(seed: number, h: number): number {
  if (xbMemo.seed !== seed || xbMemo.h !== h) xbMemo = { seed, h, xb: extrasBefore(seed, h) };
  return xbMemo.xb;
}

/** Transaction (h, i); `xb` is extrasBefore(seed, h) when the caller knows it (else -1). */
export function deriveTx(seed: number, h: number, i: number, xb = -1): TxCore {
  const r2 = hash4(seed, D_TX, h, i, 2);
  const r3 = hash4(seed, D_TX, h, i, 3);
  const r0 = hash4(seed, D_TX, h, i, 0);
  const entry = entryOf(h, r0);
  let ts = blockTime(entry) + ((r0 >>> 8) % 15);
  let failed = r2 % 100 < 3;
  let sender: number;
  let to: string;
  let recipient: string;
  let value = '0';
  let type: TxType;
  let gasPrice = GAS_PRICE;
  let gasLimit: number;
  let gasUsed: number;
  let token: TokenDef | undefined;
  let realValue: string;
  let payload = '';
  let execError = '';
  let execResultJson = '""';
  let deployed = '';
  let m = -1;
  if (i === 0) {
    sender = slotSender(h);
    token = tokenOfHeight(h);
    const c = deployedAt(h);
    if (token) {
      failed = false; // transfers always succeed: every one makes a holder (token/holders)
      recipient = normalAddress(seed, slotRecipient(h));
      type = 'call';
      to = token.contract;
      realValue = transferAmount(seed, h, token.decimals, r2);
      payload = '{"Function":"transfer","Args":"[\\"' + recipient + '\\",\\"' + realValue + '\\"]"}';
      gasLimit = (r3 & 1) === 0 ? 830000 : 810000;
      gasUsed = TRANSFER_GAS;
      execResultJson = '"\\"\\""';
    } else if (c >= 0) {
      failed = false;
      deployed = contractAddressOf(seed, c);
      type = 'deploy';
      to = normalAddress(seed, sender);
      recipient = to;
      realValue = value;
      payload = '{"SourceType":"js","Source":"\\"use strict\\";module.exports=C' + c + '"}';
      gasLimit = 2000000;
      gasUsed = DEPLOY_GAS;
    } else {
      recipient = normalAddress(seed, slotRecipient(h));
      type = 'binary';
      to = recipient;
      value = units(transferUnits(h));
      realValue = value;
      gasLimit = 200000;
      gasUsed = TRANSFER_GAS;
      failed = transferFails(h);
      if (failed) execError = 'insufficient balance';
    }
  } else {
    if (xb < 0) xb = extrasBeforeMemo(seed, h);
    m = xb + i - 1;
    sender = extraSender(m);
    const target = extraTarget(m);
    if (target >= 0) {
      type = 'binary';
      recipient = normalAddress(seed, target);
      to = recipient;
      value = units(transferUnits(m));
      gasLimit = 200000;
      gasUsed = TRANSFER_GAS;
      failed = transferFails(m);
      if (failed) execError = 'insufficient balance';
    } else if (-1 - target !== POD_CONTRACT || (m & 7) === 6) {
      type = 'call';
      to = contractAddress(seed, -1 - target);
      recipient = to;
      gasLimit = 9000000;
      gasUsed = callGas(m);
      payload = '{"Function":"vote","Args":"[' + ((r3 >>> 12) % 300) + ']"}';
      execResultJson = failed ? '""' : '"{\\"hasNext\\":false,\\"page\\":' + (1 + (r3 % 5)) + '}"';
      if (failed) execError = 'Call: vote: period closed';
      if (r0 % 4000 === 1) ts = 2147483647; // recorded quirk of the real service
    } else {
      type = 'pod';
      to = contractAddress(seed, POD_CONTRACT);
      recipient = to;
      gasPrice = '1000000000000';
      gasLimit = 50000000000;
      gasUsed = podGas(m);
      payload = '{"Function":"pod","Args":"[]"}';
      if (failed) execError = 'pod: stale witness';
    }
    realValue = value;
  }
  let limM = m - 1;
  if (i === 0 && sendsExtras(sender)) limM = (xb < 0 ? extrasBeforeMemo(seed, h) : xb) - 1;
  const nonce = 1 + sentUpTo(sender, i === 0 ? h - 1 : h, limM);
  return {
    h,
    i,
    hash: txHash(seed, h, i),
    from: normalAddress(seed, sender),
    to,
    recipient,
    value,
    nonce,
    ts,
    entry,
    type,
    gasPrice,
    gasLimit,
    gasUsed,
    token,
    realValue,
    failed,
    execError,
    execResultJson,
    payload,
    deployed,
  };
}

/** 0 failed, 1 successful, 2 pending, -1 not (yet) known at this head. */
export function txStatus(tx: TxCore, head: number): number {
  if (tx.h <= head) return tx.failed ? 0 : 1;
  if (tx.entry <= head && tx.h <= head + PENDING_WINDOW) return 2;
  return -1;
}
