/**
 * Reorgs the reader must see however it first read the block: block N
 * (an NRC20 transfer to a first-time holder) is first served as an orphan
 * (another hash, without the transfer), then replaced by the real block.
 * - first read incomplete (an upstream whose index lags: `tx/list?block_height=N`
 *   empty), so the block fell back to the head rule: its hash is still watched;
 * - replaced 22 blocks deep on a chain whose finality depth is 40: deeper than
 *   one page of the block list, still within the window down to the final height.
 * Either way the changed answers are fresh within one block after the upstream has them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { blockHash, startSimulator, txHash, txNames, type SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { dataOf, get, startReplica, type Replica } from '../helpers/replica.js';
import { content, covered, invalidationStatus, PRECISE, SEED, truth } from './kit.js';
import { startLiar, type Liar } from './liar.js';

/**
 * Block `n`, its transaction `tx` (hidden by the orphan) and the list only that transaction changes:
 * an NRC20 transfer to a first-time holder alone in its block, and a call among three transactions (its sender's list).
 */
const ALONE = {
  n: 4_842_004,
  tx: 0,
  list: (names: string[]) => `/tx/listByAddress?address=${names[1]!}&is_nrc20=true&page=1&page_size=20`,
};
const WITH_OTHERS = {
  n: 4_842_012,
  tx: 2,
  list: (names: string[]) => `/tx/listByAddress?address=${names[0]!}&page=1&page_size=20`,
};

let sim: SimulatorHandle | undefined;
let liar: Liar | undefined;
let proxy: Replica | undefined;
afterEach(async () => {
  await proxy?.close();
  await liar?.close();
  await sim?.close();
  proxy = undefined;
  liar = undefined;
  sim = undefined;
});

let N = 0;
let paths = { detail: '', list: '', txs: '' };
let orphanCount = 0;

/** The simulator (from block `b.n` − 1) behind a liar serving `b.n` as an orphan; a proxy reading through the liar. */
async function rig(b: typeof ALONE, finalityDepth: number): Promise<{ s: SimulatorHandle; l: Liar; p: Replica }> {
  N = b.n;
  paths = {
    detail: `/block/detail?h=${N}`,
    list: b.list(txNames(SEED, N, b.tx)),
    txs: `/tx/list?block_height=${N}&page=1&page_size=20`,
  };
  sim = await startSimulator({ seed: SEED, blockIntervalMs: 0, startHeight: N - 1, finalityDepth });
  liar = await startLiar(sim.url);
  liar.orphan({ hash: blockHash(SEED, N), fake: 'ab'.repeat(32), hide: txHash(SEED, N, b.tx) });
  proxy = await startReplica([liar.url], {
    upstream: { probeIntervalMs: 50, headMarginBlocks: 100 },
    invalidation: PRECISE,
  });
  await covered(proxy, N - 1);
  return { s: sim, l: liar, p: proxy };
}

/** The orphan's answers are cached (a HIT on the second request). */
async function cacheOrphan(url: string): Promise<void> {
  expect(dataOf((await get(url, paths.detail)).text)['block_hash']).toBe('ab'.repeat(32));
  orphanCount = Number(dataOf((await get(url, paths.list)).text)['count']);
  await get(url, paths.txs);
  for (const path of Object.values(paths)) expect((await get(url, path)).cache, path).toBe('HIT');
}

/** After one block made on the real block N: never the orphan's answers again. */
async function expectReplaced(s: SimulatorHandle, p: Replica): Promise<void> {
  await waitFor(
    async () => dataOf((await get(p.url, paths.detail)).text)['block_hash'] === blockHash(SEED, N),
    5000,
    `block ${N} served with its new hash`,
  );
  for (const path of [paths.list, paths.txs]) {
    const r = await get(p.url, path);
    expect(content(r.text), path).toBe(await truth(s.url, path));
  }
  expect(dataOf((await get(p.url, paths.list)).text)['count']).toBe(orphanCount + 1);
  expect(((await invalidationStatus(p.url))['guarded'] as Record<string, number>)['reorg']).toBeGreaterThanOrEqual(1);
}

describe('a reorg the reader must see', () => {
  it('of a block first read incomplete (the index lagging) is noticed within one block', async () => {
    const { s, l, p } = await rig(WITH_OTHERS, 15);
    l.emptyBlockLists(true);
    s.chain.advance(1);
    await covered(p, N);
    const status = await invalidationStatus(p.url);
    expect((status['guarded'] as Record<string, number>)['cross-check'], 'N read incomplete').toBe(1);
    l.emptyBlockLists(false);
    await cacheOrphan(p.url);

    l.reorg();
    s.chain.advance(1);
    await covered(p, N + 1);
    await expectReplaced(s, p);
  });

  it('22 blocks deep, with a finality depth of 40, is noticed within one block', async () => {
    const { s, l, p } = await rig(ALONE, 40);
    s.chain.advance(1);
    await covered(p, N);
    await cacheOrphan(p.url);
    s.chain.advance(21);
    await covered(p, N + 21);
    for (const path of Object.values(paths)) expect((await get(p.url, path)).cache, path).toBe('HIT');

    l.reorg();
    s.chain.advance(1);
    await covered(p, N + 22);
    await expectReplaced(s, p);
    expect(Number((await invalidationStatus(p.url))['reorgWindow'])).toBeGreaterThanOrEqual(40);
  });
});
