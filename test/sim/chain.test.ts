import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatorHandle } from '../../src/sim/index.js';
import { getJson, post, sim, type Paged } from './util.js';
import { waitFor } from '../helpers/fake-upstream.js';

const open: SimulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
async function start(o: Parameters<typeof sim>[0] = {}): Promise<SimulatorHandle> {
  const s = await sim(o);
  open.push(s);
  return s;
}

describe('a living chain', () => {
  it('a pending transaction confirms (status 1) or fails (0) once its block is produced', async () => {
    const s = await start();
    const pending = await getJson<Paged<{ tx_hash: string }>>(s.url, '/tx/list/pending?page_size=100');
    const hash = pending.data.list[0]!.tx_hash;
    const before = await getJson<{ status: number; block_height: number | null }>(s.url, '/tx/detail?hash=' + hash);
    expect(before.data.status).toBe(2);
    expect(before.data.block_height).toBeNull();
    await post(s.url, '/_sim/advance', { n: 40 });
    const after = await getJson<{ status: number; block_height: number }>(s.url, '/tx/detail?hash=' + hash);
    expect([0, 1]).toContain(after.data.status);
    expect(after.data.block_height).toBeGreaterThan(4_842_000);
    expect(after.data.block_height).toBeLessThanOrEqual(s.chain.head());
    const blk = await getJson<Paged<{ tx_hash: string }>>(
      s.url,
      `/tx/list?block_height=${after.data.block_height}&page_size=100`,
    );
    expect(blk.data.list.map((t) => t.tx_hash)).toContain(hash);
    const pool = await getJson<Paged<{ tx_hash: string }>>(s.url, '/tx/list/pending?page_size=100');
    expect(pool.data.list.map((t) => t.tx_hash)).not.toContain(hash);
  });

  it('transactions of far-future blocks are not found yet', async () => {
    const s = await start({ startHeight: 5_000_000 });
    const t = await start({ startHeight: 5_000_100 });
    const future = await getJson<Paged<{ tx_hash: string }>>(t.url, '/tx/list?page=1&page_size=5');
    const r = await fetch(s.url + '/tx/detail?hash=' + future.data.list[0]!.tx_hash);
    expect(r.status).toBe(404);
  });

  it(
    'finality: blocks within finalityDepth of the head are not final, ' + 'and become final as the head moves',
    async () => {
      const s = await start();
      const head = s.chain.head();
      const l = await getJson<Paged<{ height: number; is_finality: boolean }>>(s.url, '/block/list?page_size=20');
      for (const b of l.data.list) expect(b.is_finality).toBe(b.height <= head - 15);
      expect(s.chain.finalHeight()).toBe(head - 15);
      const h = head - 3;
      expect((await getJson<{ is_finality: boolean }>(s.url, '/block/detail?h=' + h)).data.is_finality).toBe(false);
      s.chain.advance(12);
      expect((await getJson<{ is_finality: boolean }>(s.url, '/block/detail?h=' + h)).data.is_finality).toBe(true);
    },
  );

  it('advance via the control plane moves the head, block/max and counts', async () => {
    const s = await start();
    const before = await getJson<{ tx_count: number }>(s.url, '/chain/summary');
    const r = await post(s.url, '/_sim/advance', { n: 7 });
    expect(r.json).toMatchObject({ head: 4_842_007, advanced: 7 });
    const max = await getJson<{ height: number }>(s.url, '/block/max');
    expect(max.data.height).toBe(4_842_007);
    const after = await getJson<{ tx_count: number }>(s.url, '/chain/summary');
    expect(after.data.tx_count).toBeGreaterThan(before.data.tx_count + 6);
  });

  it('the timer produces blocks', async () => {
    const s = await start({ blockIntervalMs: 5 });
    const h0 = s.chain.head();
    await waitFor(() => s.chain.head() >= h0 + 3);
    const max = await getJson<{ height: number }>(s.url, '/block/max');
    expect(max.data.height).toBeGreaterThanOrEqual(h0 + 3);
  });

  it('freeze makes a lagging backend: timer and advance ignored while other instances go on', async () => {
    const lag = await start({ blockIntervalMs: 5 });
    const live = await start({ blockIntervalMs: 5 });
    await post(lag.url, '/_sim/faults', { freeze: true });
    const frozenAt = lag.chain.head();
    await waitFor(() => live.chain.head() >= frozenAt + 5);
    expect(lag.chain.head()).toBe(frozenAt);
    expect((await post(lag.url, '/_sim/advance', { n: 3 })).json).toMatchObject({
      head: frozenAt,
      advanced: 0,
      frozen: true,
    });
    expect((await getJson<{ height: number }>(lag.url, '/block/max')).data.height).toBe(frozenAt);
    await post(lag.url, '/_sim/faults/reset', {});
    await waitFor(() => lag.chain.head() > frozenAt);
  });
});
