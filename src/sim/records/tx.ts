/**
 * Transaction derivation. Transaction (h, i) is a pure function of (seed, h, i).
 *
 * Index 0 of every block is a "slot" transaction whose sender is found arithmetically,
 * so per-address lists are O(1) to count and page (q = h mod 8):
 *   q = 0      hot addresses 0..15, one every 128 blocks each (tens of thousands of txs)
 *   q = 1      addresses 16..4111, one every 32768 blocks each
 *   q = 2, 3   addresses 4112..135183, one every 524288 blocks each
 *   q = 4..7   NRC20 transfers of token floor(h/8) mod 6, sent by addresses 16..4111 (one every 8192 blocks each)
 * Other indexes are random binary/call/pod transactions by random senders.
 */
import { BLOCK_SECONDS, GENESIS_TIME, PENDING_WINDOW, TOKENS, type TokenDef, ADDRESS_EVERY_BLOCKS } from '../constants.js';
import { contractAddress, normalAddress, txHash } from '../ids.js';
import { hash4, scaled } from '../rng.js';

const D_TX = 0x7478;

export type TxType = 'binary' | 'call' | 'pod';

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

/** Linear slot list: heights base + period * k for k >= kStart. */
export interface SlotList {
  base: number;
  period: number;
  kStart: number;
}

export const LEVEL0 = 16;
export const LEVEL1 = 4096;
export const LEVEL2 = 131072;
const L1_START = LEVEL0;
const L2_START = LEVEL0 + LEVEL1;

/** Slot list of the normal (non-NRC20) transactions sent by normal address a, or undefined. */
export function normalSlots(a: number): SlotList | undefined {
  if (a < L1_START) return { base: 8 * a, period: 128, kStart: a === 0 ? 1 : 0 };
  if (a < L2_START) return { base: 8 * (a - L1_START) + 1, period: 8 * LEVEL1, kStart: 0 };
  if (a < L2_START + LEVEL2) {
    const s = a - L2_START;
    return { base: 8 * Math.floor(s / 2) + 2 + (s % 2), period: 4 * LEVEL2, kStart: 0 };
  }
  return undefined;
}

/** Slot list of the NRC20 transfers sent by normal address a, or undefined. */
export function nrcSlots(a: number): SlotList | undefined {
  if (a < L1_START || a >= L2_START) return undefined;
  const s = a - L1_START;
  return { base: 8 * Math.floor(s / 4) + 4 + (s % 4), period: 2 * LEVEL1, kStart: 0 };
}

/** Number of k >= kStart with base + period*k <= limit. */
export function slotCount(l: SlotList, limit: number): number {
  if (limit < l.base + l.period * l.kStart) return 0;
  return Math.floor((limit - l.base) / l.period) + 1 - l.kStart;
}

/** Creation height of normal address a. */
export function foundHeight(a: number): number {
  let f = a * ADDRESS_EVERY_BLOCKS;
  const n = normalSlots(a);
  if (n) f = Math.min(f, n.base + n.period * n.kStart);
  const t = nrcSlots(a);
  if (t) f = Math.min(f, t.base);
  return Math.max(1, f);
}

function senderOfSlot(h: number): { a: number; k: number } {
  const q = h & 7;
  const j = h >>> 3;
  if (q === 0) return { a: j % LEVEL0, k: Math.floor(j / LEVEL0) };
  if (q === 1) return { a: L1_START + (j % LEVEL1), k: Math.floor(j / LEVEL1) };
  if (q < 4) {
    const p2 = j * 2 + (q - 2);
    return { a: L2_START + (p2 % LEVEL2), k: Math.floor(p2 / LEVEL2) };
  }
  const p = j * 4 + (q - 4);
  return { a: L1_START + (p % LEVEL1), k: Math.floor(p / LEVEL1) };
}

export function tokenOfHeight(h: number): TokenDef | undefined {
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

const POD_CONTRACT_INDEX = 7;
const GAS_PRICE = '20000000000';

function randomSender(seed: number, h: number, i: number): number {
  const n = normalAddressCount(h);
  const u = hash4(seed, D_TX, h, i, 1) / 4294967296;
  return Math.floor(n * u * u * u);
}

export function deriveTx(seed: number, h: number, i: number): TxCore {
  const r0 = hash4(seed, D_TX, h, i, 0);
  const r2 = hash4(seed, D_TX, h, i, 2);
  const r3 = hash4(seed, D_TX, h, i, 3);
  const entry = Math.max(0, h - 1 - (r0 % PENDING_WINDOW));
  let ts = blockTime(entry) + ((r0 >>> 8) % 15);
  const failed = r2 % 100 < 3;
  const recipientIdx = r3 % normalAddressCount(h);
  let from: string;
  let to: string;
  let recipient: string;
  let value = '0';
  let nonce: number;
  let type: TxType;
  let gasPrice = GAS_PRICE;
  let gasLimit: number;
  let gasUsed: number;
  let token: TokenDef | undefined;
  let realValue: string;
  let payload = '';
  let execError = '';
  let execResultJson = '""';
  if (i === 0) {
    const s = senderOfSlot(h);
    from = normalAddress(seed, s.a);
    nonce = s.k + 1;
    token = tokenOfHeight(h);
    recipient = normalAddress(seed, recipientIdx);
    if (token) {
      type = 'call';
      to = token.contract;
      realValue = scaled(1 + (r2 >>> 8) % 4999, token.decimals);
      payload = '{"Function":"transfer","Args":"[\\"' + recipient + '\\",\\"' + realValue + '\\"]"}';
      gasLimit = (r3 & 1) === 0 ? 830000 : 810000;
      gasUsed = 20000 + ((r2 >>> 4) % 45000);
      execResultJson = failed ? '""' : '"\\"\\""';
      if (failed) execError = 'Call: transfer: insufficient balance';
    } else {
      type = 'binary';
      to = recipient;
      value = scaled(1 + (r2 >>> 8) % 999999, 12 + (r3 >>> 28) % 6);
      realValue = value;
      gasLimit = 200000;
      gasUsed = 20000;
      if (failed) execError = 'insufficient balance';
    }
  } else {
    from = normalAddress(seed, randomSender(seed, h, i));
    nonce = 1 + (r3 >>> 8) % 9000;
    const kind = (r2 >>> 8) % 10;
    if (kind < 7) {
      type = 'binary';
      recipient = normalAddress(seed, recipientIdx);
      to = recipient;
      value = scaled(1 + (r2 >>> 12) % 999999, 12 + (r3 >>> 28) % 6);
      gasLimit = 200000;
      gasUsed = 20000;
      if (failed) execError = 'insufficient balance';
    } else if (kind < 9) {
      type = 'call';
      to = contractAddress(seed, (r3 >>> 4) % 1000);
      recipient = to;
      gasLimit = 9000000;
      gasUsed = 21000 + ((r2 >>> 4) % 990000);
      payload = '{"Function":"vote","Args":"[' + ((r3 >>> 12) % 300) + ']"}';
      execResultJson = failed ? '""' : '"{\\"hasNext\\":false,\\"page\\":' + (1 + (r3 % 5)) + '}"';
      if (failed) execError = 'Call: vote: period closed';
      if (r0 % 4000 === 1) ts = 2147483647; // recorded quirk of the real service
    } else {
      type = 'pod';
      to = contractAddress(seed, POD_CONTRACT_INDEX);
      recipient = to;
      gasPrice = '1000000000000';
      gasLimit = 50000000000;
      gasUsed = 150000 + ((r2 >>> 4) % 2000);
      payload = '{"Function":"pod","Args":"[]"}';
      if (failed) execError = 'pod: stale witness';
    }
    realValue = value;
  }
  return {
    h, i, hash: txHash(seed, h, i), from, to, recipient, value, nonce, ts, entry, type, gasPrice, gasLimit, gasUsed,
    token, realValue, failed, execError, execResultJson, payload,
  };
}

/** 0 failed, 1 successful, 2 pending, -1 not (yet) known at this head. */
export function txStatus(tx: TxCore, head: number): number {
  if (tx.h <= head) return tx.failed ? 0 : 1;
  if (tx.entry <= head && tx.h <= head + PENDING_WINDOW) return 2;
  return -1;
}

export function isPendingAt(seed: number, h: number, i: number, head: number): boolean {
  if (h <= head || h > head + PENDING_WINDOW) return false;
  const r0 = hash4(seed, D_TX, h, i, 0);
  return Math.max(0, h - 1 - (r0 % PENDING_WINDOW)) <= head;
}

/** Gas fee = gasPrice * gasUsed as a decimal string. */
export function txFee(gasPrice: string, gasUsed: number): string {
  const p = Number(gasPrice);
  const f = p * gasUsed;
  return f <= Number.MAX_SAFE_INTEGER ? String(f) : (BigInt(gasPrice) * BigInt(gasUsed)).toString();
}
