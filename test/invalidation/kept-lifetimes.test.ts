/**
 * What only the reader can tell changes is kept until it tells, whatever the
 * time: a pending transaction's detail while the polled pool still holds it
 * (then fetched once with the block that mines it), a recent block's record,
 * by height and by hash, until its finality flips (then fetched once). No
 * safety bound cuts them first, and a block this replica never read (below its
 * first block) is watched by the hash the reorg window shows. The proxy runs
 * on a fake clock; blocks come from the simulator, through a counting relay.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { blockHash, decodeTxHash, startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { untilFinal } from '../helpers/until.js';
import { fakeClock, type FakeClock } from '../helpers/clock.js';
import { dataOf, get, startReplica, type Replica } from '../helpers/replica.js';
import { content, covered, PRECISE, SEED, truth } from './kit.js';
import { startLiar, type Liar } from './liar.js';

/** Past the safety bounds the kit sets (60 s): today's rule fetched these again. */
const PAST_BOUND_MS = 61_000;

let sim: SimulatorHandle | undefined;
let relay: Liar | undefined;
let proxy: Replica | undefined;
afterEach(async () => {
  await proxy?.close();
  await relay?.close();
  await sim?.close();
  proxy = relay = sim = undefined;
});

async function start(
  finalityDepth: number,
  pendingPollMs = 0,
): Promise<{ s: SimulatorHandle; r: Liar; p: Replica; clock: FakeClock }> {
  const clock = fakeClock(Date.now());
  sim = await startSimulator({ seed: SEED, blockIntervalMs: 0, finalityDepth });
  relay = await startLiar(sim.url);
  proxy = await startReplica(
    [relay.url],
    { upstream: { probeIntervalMs: 50, headMarginBlocks: 100 }, invalidation: { ...PRECISE, pendingPollMs } },
    clock.now,
  );
  await covered(proxy, sim.chain.head());
  return { s: sim, r: relay, p: proxy, clock };
}

/** One block more, read by the proxy. */
async function block(s: SimulatorHandle, p: Replica): Promise<void> {
  s.chain.advance(1);
  await covered(p, s.chain.head());
}

const asked = (r: Liar, path: string): number => r.requests.filter((q) => q.url === path).length;

describe('kept until the reader tells', () => {
  it('a pending transaction: a hit past the bound while the pool holds it, fetched once when mined', async () => {
    const { s, r, p, clock } = await start(15, 100);
    const head = s.chain.head();
    const pool = dataOf((await get(p.url, '/tx/list/pending?page=1&page_size=100')).text)['list'] as {
      tx_hash: string;
    }[];
    const hash = pool.map((t) => t.tx_hash).find((h) => (decodeTxHash(SEED, h)?.[0] ?? 0) >= head + 3);
    expect(hash, 'a transaction pending for three blocks').toBeDefined();
    const minedAt = decodeTxHash(SEED, hash!)![0];
    const path = `/tx/detail?hash=${hash!}`;
    expect(dataOf((await get(p.url, path)).text)['status']).toBe(2);
    const once = asked(r, path);
    for (let h = head + 1; h < minedAt; h++) {
      clock.advance(PAST_BOUND_MS);
      const kept = await get(p.url, path);
      expect(kept.cache, `${PAST_BOUND_MS} ms later, at ${h - 1}`).toBe('HIT');
      expect(content(kept.text)).toBe(await truth(s.url, path));
      await block(s, p);
      expect((await get(p.url, path)).cache, `at ${h}, mined at ${minedAt}`).toBe('HIT');
    }
    expect(asked(r, path)).toBe(once);
    await block(s, p);
    const mined = await get(p.url, path);
    expect(mined.cache).toBe('MISS');
    expect(dataOf(mined.text)['block_height']).toBe(minedAt);
    expect(content(mined.text)).toBe(await truth(s.url, path));
    expect(asked(r, path)).toBe(once + 1);
  });

  it('a recent block by height and by hash: hits across blocks and past the bound, one fetch when final', async () => {
    const depth = 4;
    const { s, r, p, clock } = await start(depth);
    const n = s.chain.head();
    const paths = [`/block/detail?h=${n}`, `/block/detail?h=${blockHash(SEED, n)}`];
    for (const path of paths) expect(dataOf((await get(p.url, path)).text)['is_finality']).toBe(false);
    const once = paths.map((path) => asked(r, path));
    for (let h = n + 1; h < n + depth; h++) {
      await block(s, p);
      clock.advance(PAST_BOUND_MS);
      for (const path of paths) expect((await get(p.url, path)).cache, `${path} at ${h}`).toBe('HIT');
    }
    expect(paths.map((path) => asked(r, path))).toEqual(once);
    await block(s, p);
    await untilFinal(p.tracker, n);
    for (const path of paths) {
      const fin = await get(p.url, path);
      expect(dataOf(fin.text)['is_finality'], path).toBe(true);
      expect((await get(p.url, path)).cache, path).toBe('HIT');
    }
    expect(paths.map((path) => asked(r, path))).toEqual(once.map((k) => k + 1));
  });

  it('a block below the first one this replica read, by hash: watched by the window, a hit across blocks', async () => {
    const { s, p } = await start(15);
    const n = s.chain.head() - 2;
    // The first drain (and its window) is over once the next block is read.
    await block(s, p);
    const path = `/block/detail?h=${blockHash(SEED, n)}`;
    expect(dataOf((await get(p.url, path)).text)['height']).toBe(n);
    await block(s, p);
    const kept = await get(p.url, path);
    expect(kept.cache).toBe('HIT');
    expect(content(kept.text)).toBe(await truth(s.url, path));
  });
});
