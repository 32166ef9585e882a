/**
 * The chain as a consistent ledger: over consecutive blocks (typical ones and around each kind of
 * boundary), the per-address and per-contract answers that change on a block are exactly those of
 * the addresses the block or the pool's new entries name (touchedAt, the statement of truth), the
 * names tx/detail shows agree with touchedAt, and every named party's list shows the tx.
 */
import { describe, expect, it } from 'vitest';
import { blockTime } from '../../src/sim/records/tx.js';
import { contractAddress, internalCreditsAt, normalAddress, TOKENS, touchedAt } from '../../src/sim/index.js';
import { blockTxHashes, Ledger, namesOf, pendingHashes, type TxDetail } from './ledger-kit.js';

/**
 * Addresses of every kind, named or not: hot, mid, cold senders,
 * receivers, producers, token holders, contracts, unseen.
 */
function fixedSample(seed: number): string[] {
  const normal = [
    ...Array.from({ length: 16 }, (_, a) => a),
    16,
    17,
    100,
    2000,
    4111,
    4112,
    5000,
    100_000,
    135_183,
    135_184,
    140_000,
    200_000,
    200_037,
    300_000,
    397_327,
    397_328,
    10_000_000,
    (1 << 24) + 403_000,
    (1 << 24) + 5,
    6 * (1 << 24) + 403_400,
  ];
  const contracts = [0, 1, 7, 500, 1023, 1024, 4687, 18_000, 30_000];
  return [
    ...normal.map((a) => normalAddress(seed, a)),
    ...contracts.map((c) => contractAddress(seed, c)),
    ...TOKENS.map((t) => t.contract),
  ];
}

function firstMidnightAfter(h: number): number {
  while (Math.floor(blockTime(h) / 86400) === Math.floor(blockTime(h - 1) / 86400)) h++;
  return h;
}

const changed = (a: Record<string, string>, b: Record<string, string>, keys: string[]): boolean =>
  keys.some((k) => a[k] !== b[k]);

/**
 * Walks blocks start+1 .. start+n and checks every block against touchedAt (with internal
 * transfers, the answers that change are those of touchedAt and internalCreditsAt).
 */
function walk(
  start: number,
  n: number,
  seed = 1,
  internal = false,
): { named: Set<string>; stageEnds: number; credited: Set<string> } {
  const l = new Ledger(seed, start, internal);
  const sample = new Set(fixedSample(seed));
  const credited = new Set<string>();
  for (let h = start + 1; h <= start + n; h++)
    for (const a of [...touchedAt(seed, h).addresses, ...internalCreditsAt(seed, h)]) sample.add(a);
  let before = new Map([...sample].map((x) => [x, l.answers(x)] as const));
  let pool = pendingHashes(l);
  const named = new Set<string>();
  let stageEnds = 0;
  for (let h = start + 1; h <= start + n; h++) {
    l.chain.advance(1);
    const after = new Map([...sample].map((x) => [x, l.answers(x)] as const));
    const truth = touchedAt(seed, h);
    // 1. the names the answers show: the block's txs, the pool's new entries, the coinbase
    const poolNow = pendingHashes(l);
    const entered = [...poolNow].filter((x) => !pool.has(x));
    const mined = blockTxHashes(l, h);
    const shown = new Set<string>([l.get<{ coinbase: string }>('block/detail', { h: String(h) }).coinbase]);
    for (const hash of [...mined, ...entered]) {
      const d = l.get<TxDetail>('tx/detail', { hash });
      for (const a of namesOf(d)) shown.add(a);
      // 2. every named sender and recipient lists it, pending (2) or mined (0/1)
      for (const a of namesOf(d)) {
        const q = { address: a, is_nrc20: String(d.is_nrc20), page_size: '100' };
        const item = l
          .get<{ list: { tx_hash: string; status: number }[] }>('tx/listByAddress', q)
          .list.find((t) => t.tx_hash === hash);
        expect(item, `${hash} in the list of ${a} at ${h}`).toBeDefined();
        expect(item!.status === 2, `${hash} status at ${h}`).toBe(mined.includes(hash) ? false : true);
      }
    }
    expect([...shown].sort(), `names at ${h}`).toEqual([...truth.addresses].sort());
    // 3. exactly the named addresses' answers change
    const keys = (x: string): string[] => Object.keys(after.get(x)!).filter((k) => k !== 'profits');
    const moved = [...sample].filter((x) => changed(before.get(x)!, after.get(x)!, keys(x)));
    const paid = internal ? internalCreditsAt(seed, h) : [];
    for (const a of paid) credited.add(a);
    expect(moved.sort(), `changed at ${h}`).toEqual([...new Set([...truth.addresses, ...paid])].sort());
    // 4. nax/profits move only on the block that ends a stage
    const profits = [...sample].filter((x) => changed(before.get(x)!, after.get(x)!, ['profits']));
    if (!truth.stageEnd) expect(profits, `profits at ${h}`).toEqual([]);
    if (truth.stageEnd) stageEnds += profits.length > 0 ? 1 : 0;
    for (const a of truth.addresses) named.add(a);
    before = after;
    pool = poolNow;
  }
  return { named, stageEnds, credited };
}

describe('the ledger: answers change exactly with the addresses a block names', () => {
  it('typical blocks', () => {
    expect(walk(4_842_000, 12).named.size).toBeGreaterThan(12 * 4);
  });

  it('around a NAX stage end (4 848 000): profits move there and only there', () => {
    expect(walk(4_847_995, 8).stageEnds).toBe(1);
  });

  it('around a contract deployment (4 842 241)', () => {
    expect(walk(4_842_237, 8).named).toContain(contractAddress(1, (4_842_241 - 1) / 256));
  });

  it('around a token contract deployment (ATP, 1 199 873)', () => {
    expect(walk(1_199_869, 8).named).toContain(TOKENS[0]!.contract);
  });

  it('another seed, elsewhere on the chain', () => {
    walk(2_000_003, 8, 7);
  });

  it('with internal transfers: the credited addresses change too, and no block names them', () => {
    const w = walk(4_842_015, 12, 1, true);
    expect(w.credited.size).toBeGreaterThanOrEqual(3);
    for (const a of w.credited) expect(w.named).not.toContain(a);
  });

  it('around UTC midnight', () => {
    walk(firstMidnightAfter(4_842_000) - 4, 8);
  });
});
