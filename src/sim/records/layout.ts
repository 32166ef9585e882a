/**
 * Who each transaction names, both ways: forward (tx → parties) and inverse (address → the
 * arithmetic progressions of its transactions). Both directions are closed-form, so
 * per-address lists count and page in O(1)/O(log n). See README.md "Ledger" for the layout.
 *
 * Positions live in two spaces: slot txs (index 0) by height h, extra txs (index >= 1) by
 * extra number m (see txcount.ts). Slot q = h mod 8, j = h >> 3:
 *   q 0      hot L0[j mod 16]            → L1[j mod 4096]
 *   q 1      L1[j mod 4096]              → L2[o(j)], or deploys contract j/32 when j mod 32 = 0
 *   q 2, 3   L2[p2 mod 131072]           → L0[p2 mod 16]             (p2 = 2j + q - 2)
 *   q 4..7   L1[p mod 4096] NRC20 transfer m of token j mod 6 → fresh holder TR(t, m)
 * Extra m (c = m mod 8): sender L2[m mod 131072]; c < 6 binary → XR[m mod 262144],
 *   c = 6 call → contract (m >> 3) mod 1024, c = 7 pod → contract 7.
 */
import { TOKENS } from '../constants.js';
import { contractAddress } from '../ids.js';

const L0 = 16;
export const L1 = 4096;
const L2 = 131072;
export const L1_START = 16;
const L2_START = L1_START + L1;
const XR_START = L2_START + L2;
const XR = 262144;
/** Token t's m-th transfer goes to normal address TR_BASE * (t + 1) + m (never any other tx). */
export const TR_BASE = 1 << 24;
const DEPLOY_EVERY = 256;
const CALLED_CONTRACTS = 1024;
export const POD_CONTRACT = 7;
/** A single-item progression: period larger than any height or extra number. */
const ONCE = 2 ** 42;

/** Generated contract index whose deploy slot deploys token t instead (its n2 address stays unused). */
export const TOKEN_DEPLOY_INDEX: readonly number[] = TOKENS.map((t) =>
  Math.floor((1_200_000 + t.index * 97_531) / DEPLOY_EVERY),
);

/** Address of the contract deployed by deploy slot c (a token contract or a generated n2 address). */
export function contractAddressOf(seed: number, c: number): string {
  const t = TOKEN_DEPLOY_INDEX.indexOf(c);
  return t >= 0 ? TOKENS[t]!.contract : contractAddress(seed, c);
}

export function deployHeight(c: number): number {
  return DEPLOY_EVERY * c + 1;
}

/** Contract deployed by slot h, or -1. */
export function deployedAt(h: number): number {
  return (h & 7) === 1 && ((h >>> 3) & 31) === 0 ? (h - 1) / DEPLOY_EVERY : -1;
}

export function contractCountAt(head: number): number {
  return head < 1 ? 0 : Math.floor((head - 1) / DEPLOY_EVERY) + 1;
}

/** Sender (normal index) of slot h. */
export function slotSender(h: number): number {
  const q = h & 7;
  const j = h >>> 3;
  if (q === 0) return j % L0;
  if (q === 1) return L1_START + (j % L1);
  if (q < 4) return L2_START + ((j * 2 + (q - 2)) % L2);
  return L1_START + ((j * 4 + (q - 4)) % L1);
}

/** Index of token t's transfer at slot h (q >= 4), oldest first. */
function transferIndex(h: number): number {
  return 4 * Math.floor((h >>> 3) / TOKENS.length) + (h & 7) - 4;
}

/** Recipient normal index of a non-deploy slot h. */
export function slotRecipient(h: number): number {
  const q = h & 7;
  const j = h >>> 3;
  if (q === 0) return L1_START + (j % L1);
  if (q === 1) {
    const r = j % L1;
    return L2_START + r - (r >>> 5) - 1;
  }
  if (q < 4) return (j * 2 + (q - 2)) % L0;
  return TR_BASE * (((h >>> 3) % TOKENS.length) + 1) + transferIndex(h);
}

export function extraSender(m: number): number {
  return L2_START + (m % L2);
}

/** Extra m: recipient normal index (binary), or -1 - contract index (call / pod). */
export function extraTarget(m: number): number {
  const c = m & 7;
  if (c < 6) return XR_START + (m % XR);
  return c === 6 ? -1 - ((m >>> 3) % CALLED_CONTRACTS) : -1 - POD_CONTRACT;
}

/** What the txs of a stream are (their value and fee rules: value.ts). */
type StreamKind = 'binary' | 'transfer' | 'deploy' | 'call' | 'pod';

/** Arithmetic progression of positions base + period k (k >= kStart) in slot (h) or extra (m) space. */
export interface Stream {
  kind: StreamKind;
  extra: boolean;
  base: number;
  period: number;
  kStart: number;
  nrc: boolean;
  /** counts toward the nonce (txs the address sent) */
  sent: boolean;
}

/** Number of k >= kStart with base + period k <= limit. */
export function streamCount(s: Stream, limit: number): number {
  if (limit < s.base + s.period * s.kStart) return 0;
  return Math.floor((limit - s.base) / s.period) + 1 - s.kStart;
}

function upTo(base: number, period: number, kStart: number, limit: number): number {
  return limit < base + period * kStart ? 0 : Math.floor((limit - base) / period) + 1 - kStart;
}

export function sendsExtras(a: number): boolean {
  return a >= L2_START && a < XR_START;
}

/**
 * Txs normal address a sent up to slot height limH and extra number limM (limM read only when
 * sendsExtras(a)): normalStreams' sent streams, counted without allocating.
 */
export function sentUpTo(a: number, limH: number, limM: number): number {
  if (a < L1_START) return upTo(8 * a, 128, a === 0 ? 1 : 0, limH);
  if (a < L2_START) {
    const r = a - L1_START;
    return upTo(8 * r + 1, 8 * L1, 0, limH) + upTo(8 * Math.floor(r / 4) + 4 + (r % 4), 2 * L1, 0, limH);
  }
  if (a < XR_START) {
    const s = a - L2_START;
    return upTo(8 * Math.floor(s / 2) + 2 + (s % 2), 4 * L2, 0, limH) + upTo(s, L2, 0, limM);
  }
  return 0;
}

const st = (kind: StreamKind, extra: boolean, base: number, period: number, sent = false, kStart = 0): Stream => ({
  kind,
  extra,
  base,
  period,
  kStart,
  nrc: kind === 'transfer',
  sent,
});

/** Addresses that send (and so hold an endowment from genesis). */
export function endowed(a: number): boolean {
  return a < XR_START;
}

const EXTRA_KIND: readonly StreamKind[] = ['binary', 'binary', 'binary', 'binary', 'binary', 'binary', 'call', 'pod'];

/** Streams of normal address a (empty for addresses no tx ever names). */
export function normalStreams(a: number): Stream[] {
  if (a < L1_START) {
    return [
      st('binary', false, 8 * a, 128, true, a === 0 ? 1 : 0),
      st('binary', false, 8 * (a >> 1) + 2 + (a & 1), 64),
    ];
  }
  if (a < L2_START) {
    const r = a - L1_START;
    return [
      st(r % 32 === 0 ? 'deploy' : 'binary', false, 8 * r + 1, 8 * L1, true),
      st('transfer', false, 8 * Math.floor(r / 4) + 4 + (r % 4), 2 * L1, true),
      st('binary', false, 8 * r, 8 * L1, false, r === 0 ? 1 : 0),
    ];
  }
  if (a < XR_START) {
    const s = a - L2_START;
    const out = [
      st('binary', false, 8 * Math.floor(s / 2) + 2 + (s % 2), 4 * L2, true),
      st(EXTRA_KIND[s % 8]!, true, s, L2, true),
    ];
    if (s < L1 - L1 / 32) out.push(st('binary', false, 8 * (32 * Math.floor(s / 31) + (s % 31) + 1) + 1, 8 * L1));
    return out;
  }
  if (a < XR_START + XR) {
    const o = a - XR_START;
    return o % 8 < 6 ? [st('binary', true, o, XR)] : [];
  }
  const t = Math.floor(a / TR_BASE) - 1;
  if (t >= 0 && t < TOKENS.length) {
    const m = a % TR_BASE;
    return [st('transfer', false, 8 * (t + TOKENS.length * Math.floor(m / 4)) + 4 + (m % 4), ONCE)];
  }
  return [];
}

/** Streams of generated contract c (its deploy tx, then calls). */
export function contractStreams(c: number): Stream[] {
  if (TOKEN_DEPLOY_INDEX.includes(c)) return [];
  const out = [st('deploy', false, deployHeight(c), ONCE)];
  if (c < CALLED_CONTRACTS) out.push(st('call', true, 8 * c + 6, 8 * CALLED_CONTRACTS));
  if (c === POD_CONTRACT) out.push(st('pod', true, 7, 8));
  return out;
}

/** Streams of token contract t: its deploy tx and its transfers. */
export function tokenStreams(t: number): Stream[] {
  const out = [st('deploy', false, deployHeight(TOKEN_DEPLOY_INDEX[t]!), ONCE)];
  for (let r = 0; r < 4; r++) out.push(st('transfer', false, 8 * t + 4 + r, 8 * TOKENS.length));
  return out;
}
