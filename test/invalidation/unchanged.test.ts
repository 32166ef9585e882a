/**
 * What did not change is not fetched again: a pending transaction's detail is
 * kept while it stays in the pool (blocks that do not mine it, the pool
 * changing around it), and dropped with the block that mines it; a recent
 * block's record named by its hash is kept until the block is final.
 */
import { describe, expect, it } from 'vitest';
import { blockHash, decodeTxHash } from '../../src/sim/index.js';
import { dataOf, get } from '../helpers/replica.js';
import { content, covered, PRECISE, preciseRig, SEED, truth } from './kit.js';

const rig = preciseRig();

describe('unchanged answers are kept', () => {
  it('a pending transaction, until the block that mines it', async () => {
    const { sim, proxy } = await rig.start({
      invalidation: { ...PRECISE, pendingPollMs: 100 },
    });
    const head = sim.chain.head();
    await covered(proxy, head);
    const pool = dataOf((await get(proxy.url, '/tx/list/pending?page=1&page_size=100')).text)['list'] as {
      tx_hash: string;
    }[];
    const later = pool.map((t) => t.tx_hash).find((h) => (decodeTxHash(SEED, h)?.[0] ?? 0) >= head + 3);
    expect(later, 'a transaction pending for three blocks').toBeDefined();
    const hash = later!;
    const minedAt = decodeTxHash(SEED, hash)![0];
    const path = `/tx/detail?hash=${hash}`;
    expect(dataOf((await get(proxy.url, path)).text)['status']).toBe(2);
    expect((await get(proxy.url, path)).cache).toBe('HIT');
    for (let h = head + 1; h < minedAt; h++) {
      sim.chain.advance(1);
      await covered(proxy, h);
      const r = await get(proxy.url, path);
      expect(r.cache, `at ${h}, mined at ${minedAt}`).toBe('HIT');
      expect(content(r.text)).toBe(await truth(sim.url, path));
    }
    sim.chain.advance(1);
    await covered(proxy, minedAt);
    const r = await get(proxy.url, path);
    expect(r.cache).not.toBe('HIT');
    expect(dataOf(r.text)['block_height']).toBe(minedAt);
    expect(content(r.text)).toBe(await truth(sim.url, path));
    // Fetched just after its block: kept until the block is final, not stamped behind it.
    expect((await get(proxy.url, path)).cache).toBe('HIT');
  });

  it('a recent block named by its hash, until it is final', async () => {
    const { sim, proxy } = await rig.start({}, { finalityDepth: 2 });
    const n = sim.chain.head() + 1;
    sim.chain.advance(1);
    await covered(proxy, n);
    // A block the reader read: it knows that height by that hash.
    const path = `/block/detail?h=${blockHash(SEED, n)}`;
    expect(dataOf((await get(proxy.url, path)).text)['is_finality']).toBe(false);
    expect((await get(proxy.url, path)).cache).toBe('HIT');
    sim.chain.advance(1);
    await covered(proxy, n + 1);
    expect((await get(proxy.url, path)).cache).toBe('HIT');
    sim.chain.advance(1);
    await covered(proxy, n + 2);
    const r = await get(proxy.url, path);
    expect(r.cache).not.toBe('HIT');
    expect(dataOf(r.text)['is_finality']).toBe(true);
  });
});
