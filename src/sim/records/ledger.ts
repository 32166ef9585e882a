/**
 * Per-address ledger over the streams of layout.ts: counts, nonces, first appearance and
 * newest-first pages merging an address's progressions (pending txs first).
 */
import { PENDING_WINDOW, tokenByContract } from '../constants.js';
import { decodeAddress } from '../ids.js';
import { coinbaseStream } from './coinbase.js';
import { contractStreams, endowed, normalStreams, streamCount, tokenStreams, type Stream } from './layout.js';
import { BLOCK_REWARD, DEPLOY_FEE, ENDOWMENT, movedUnits, sumMod, TRANSFER_FEE, units } from './value.js';
import { extraHeight, extrasBefore, locateExtra } from './txcount.js';
import { isPendingAt } from './pending.js';

type AddressKind = 'normal' | 'contract' | 'token' | 'unknown';

export interface Account {
  kind: AddressKind;
  /** normal / generated contract index, or token index */
  index: number;
  streams: Stream[];
  /** coinbase rewards (block producers only) */
  rewards: Stream | null;
}

export function account(seed: number, address: string): Account {
  const tok = tokenByContract(address);
  if (tok) return { kind: 'token', index: tok.index, streams: tokenStreams(tok.index), rewards: null };
  const dec = decodeAddress(seed, address);
  if (!dec) return { kind: 'unknown', index: -1, streams: [], rewards: null };
  if (dec.kind === 'contract')
    return { kind: 'contract', index: dec.index, streams: contractStreams(dec.index), rewards: null };
  return {
    kind: 'normal',
    index: dec.index,
    streams: normalStreams(dec.index),
    rewards: coinbaseStream(seed, dec.index),
  };
}

/** Position of a stream item: [height, index, extra number (-1 for slots)]. */
type Pos = [number, number, number];

function posOf(seed: number, s: Stream, k: number): Pos {
  const x = s.base + s.period * k;
  if (!s.extra) return [x, 0, -1];
  const [h, i] = locateExtra(seed, x);
  return [h, i, x];
}

/** Confirmed limits at head: last height, last extra number. */
export interface Limits {
  h: number;
  m: number;
}

/** Last limits computed: requests at one head share them. */
let memo: Limits & { seed: number } = { seed: -1, h: -1, m: -1 };

/** Limits at head (the extra-number limit is computed only when a stream is in extra space). */
export function limitsAt(seed: number, head: number, streams: readonly Stream[] | null = null): Limits {
  if (memo.seed === seed && memo.h === head) return memo;
  if (streams !== null && !streams.some((s) => s.extra)) return { h: head, m: -1 };
  memo = { seed, h: head, m: extrasBefore(seed, head + 1) - 1 };
  return memo;
}

function countIn(s: Stream, lim: Limits): number {
  return streamCount(s, s.extra ? lim.m : lim.h);
}

/** Height of the first confirmed event naming the account (Infinity when none). */
export function firstEvent(seed: number, acc: Account): number {
  let f = acc.rewards ? acc.rewards.base + acc.rewards.period * acc.rewards.kStart : Infinity;
  for (const s of acc.streams) {
    const x = s.base + s.period * s.kStart;
    const h = s.extra ? extraHeight(seed, x) : x;
    if (h < f) f = h;
  }
  return f;
}

/** Confirmed sent txs, and all confirmed events (txs naming it and block rewards). */
export function tally(acc: Account, lim: Limits): { sent: number; events: number } {
  let sent = 0;
  let events = acc.rewards ? streamCount(acc.rewards, lim.h) : 0;
  for (const s of acc.streams) {
    const c = countIn(s, lim);
    events += c;
    if (s.sent) sent += c;
  }
  return { sent, events };
}

/** Fee units paid for the first n txs of a sent stream starting at position x0. */
function feeUnits(s: Stream, x0: number, n: number): number {
  if (s.kind === 'call') return 5 * n + sumMod(x0, s.period, n, 196);
  if (s.kind === 'pod') return 1500 * n + sumMod(x0, s.period, n, 20);
  return (s.kind === 'deploy' ? DEPLOY_FEE : TRANSFER_FEE) * n;
}

/**
 * Native balance of a normal account at the limits: its endowment, plus block rewards and native
 * values received, minus values sent and fees (failed transfers move no value but pay their fee),
 * plus `creditedUnits` received outside the lists (internal transfers).
 */
export function balanceOf(acc: Account, lim: Limits, creditedUnits = 0): string {
  let u = (endowed(acc.index) ? ENDOWMENT : 0) + creditedUnits;
  if (acc.rewards) u += BLOCK_REWARD * streamCount(acc.rewards, lim.h);
  for (const s of acc.streams) {
    const n = countIn(s, lim);
    const x0 = s.base + s.period * s.kStart;
    const moved = s.kind === 'binary' ? movedUnits(x0, s.period, n) : 0;
    u += s.sent ? -moved - feeUnits(s, x0, n) : moved;
  }
  return units(u);
}

const key = (p: Pos): number => p[0] * 4096 + p[1];

/** Pending items of the streams at head, newest first. */
function pendingOf(seed: number, streams: Stream[], lim: Limits, head: number): Pos[] {
  const out: Pos[] = [];
  let mTop = -1;
  for (const s of streams) {
    let k = s.kStart + countIn(s, lim);
    for (;;) {
      const x = s.base + s.period * k;
      if (s.extra) {
        if (mTop < 0) mTop = extrasBefore(seed, head + PENDING_WINDOW + 1);
        if (x >= mTop) break;
      } else if (x > head + PENDING_WINDOW) break;
      const p = posOf(seed, s, k);
      if (isPendingAt(seed, p[0], p[1], head)) out.push(p);
      k++;
    }
  }
  return out.sort((a, b) => key(b) - key(a));
}

export interface Page {
  count: number;
  items: Pos[];
}

/**
 * Items [from, to) of the newest-first list of the streams (pending first when asked);
 * count is the list's full length.
 */
export function listPage(
  seed: number,
  streams: Stream[],
  head: number,
  from: number,
  to: number,
  withPending: boolean,
): Page {
  const lim = limitsAt(seed, head, streams);
  const pend = withPending ? pendingOf(seed, streams, lim, head) : [];
  const counts = streams.map((s) => countIn(s, lim));
  let confirmed = 0;
  for (const c of counts) confirmed += c;
  const count = confirmed + pend.length;
  const items: Pos[] = [];
  for (let x = from; x < Math.min(to, pend.length); x++) items.push(pend[x]!);
  if (to <= pend.length || from >= count) return { count, items };
  // cursors: k of the newest not yet taken item per stream (-1 when exhausted)
  const skip = Math.max(0, from - pend.length);
  const cur =
    skip > 64 ? cursorsAt(seed, streams, counts, confirmed - skip) : counts.map((c, j) => streams[j]!.kStart + c - 1);
  const heads: (Pos | null)[] = streams.map((s, j) => (cur[j]! >= s.kStart ? posOf(seed, s, cur[j]!) : null));
  const need = Math.min(to, count) - pend.length;
  for (let x = skip > 64 ? skip : 0; x < need; x++) {
    let best = -1;
    for (let j = 0; j < heads.length; j++) if (heads[j] && (best < 0 || key(heads[j]!) > key(heads[best]!))) best = j;
    if (best < 0) break;
    if (x >= skip) items.push(heads[best]!);
    const s = streams[best]!;
    cur[best]!--;
    heads[best] = cur[best]! >= s.kStart ? posOf(seed, s, cur[best]!) : null;
  }
  return { count, items };
}

/**
 * Cursors such that exactly `keep` confirmed items (the oldest) remain: binary search on the
 * height, then the items of the boundary block are ordered by the merge.
 */
function cursorsAt(seed: number, streams: Stream[], counts: number[], keep: number): number[] {
  const upTo = (h: number): number[] => {
    const lim = limitsAt(seed, h, streams);
    return streams.map((s, j) => Math.min(counts[j]!, countIn(s, lim)));
  };
  const sum = (a: number[]): number => a.reduce((x, y) => x + y, 0);
  let lo = 0;
  let hi = streams.reduce(
    (m, s, j) => Math.max(m, counts[j]! > 0 ? posOf(seed, s, s.kStart + counts[j]! - 1)[0] : 0),
    0,
  );
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (sum(upTo(mid)) >= keep) hi = mid;
    else lo = mid + 1;
  }
  // block lo holds the boundary: take all items up to it, then drop the newest extras of block lo
  const c = upTo(lo);
  let extra = sum(c) - keep;
  const cur = c.map((x, j) => streams[j]!.kStart + x - 1);
  while (extra-- > 0) {
    let best = -1;
    let bk = -1;
    for (let j = 0; j < streams.length; j++) {
      if (cur[j]! < streams[j]!.kStart) continue;
      const k = key(posOf(seed, streams[j]!, cur[j]!));
      if (k > bk) [best, bk] = [j, k];
    }
    cur[best]!--;
  }
  return cur;
}
