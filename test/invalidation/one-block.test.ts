/**
 * An answer about one block (a mined transaction not final yet) changes only
 * when its block becomes final or gets another hash: it is kept past the
 * balances' safety bound (no unchanged refetch at 60 s), and when its block
 * becomes final with the same hash it is promoted to the final TTL without a
 * refetch. The proxy runs on a fake clock; blocks come from the simulator.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, txHash, type SimulatorHandle } from '../../src/sim/index.js';
import { untilFinal } from '../helpers/until.js';
import { fakeClock } from '../helpers/clock.js';
import { dataOf, get, startReplica, type Replica } from '../helpers/replica.js';
import { covered, PRECISE, SEED } from './kit.js';
import { startLiar, type Liar } from './liar.js';

const FINALITY_DEPTH = 15;

let sim: SimulatorHandle | undefined;
let relay: Liar | undefined;
let proxy: Replica | undefined;
afterEach(async () => {
  await proxy?.close();
  await relay?.close();
  await sim?.close();
  proxy = undefined;
  relay = undefined;
  sim = undefined;
});

describe('an answer about one block', () => {
  it('a mined transaction is kept until its block is final, then promoted without a refetch', async () => {
    const clock = fakeClock(Date.now());
    sim = await startSimulator({ seed: SEED, blockIntervalMs: 0 });
    const s = sim;
    // An honest relay: it records the requests for the transaction.
    relay = await startLiar(s.url);
    const r = relay;
    // The lists' bound (10 min) is longer than the balances' (60 s).
    proxy = await startReplica(
      [r.url],
      { upstream: { probeIntervalMs: 50, headMarginBlocks: 100 }, invalidation: { ...PRECISE, listMaxAgeMs: 600_000 } },
      clock.now,
    );
    const p = proxy;
    const h0 = s.chain.head();
    await covered(p, h0);
    const mined = h0 - 3;
    const path = `/tx/detail?hash=${txHash(SEED, mined, 0)}`;
    const upstream = (): number => r.requests.filter((q) => q.url === path).length;

    const first = await get(p.url, path);
    expect(first.cache).toBe('MISS');
    expect(dataOf(first.text)['block_height']).toBe(mined);
    const asked = upstream();

    // Past the 60 s safety bound, with no block: still the same block, still a hit.
    clock.advance(61_000);
    expect((await get(p.url, path)).cache).toBe('HIT');
    expect(upstream()).toBe(asked);

    // Its block becomes final (finality depth 15): promoted, not fetched again.
    s.chain.advance(mined + FINALITY_DEPTH - h0);
    await covered(p, mined + FINALITY_DEPTH);
    await untilFinal(p.tracker, mined);
    const promoted = await get(p.url, path);
    expect(promoted.cache).toBe('HIT');
    expect(promoted.text).toBe(first.text);
    expect(upstream()).toBe(asked);
    // Kept with the final TTL now: a day later minus a minute, still a hit.
    clock.advance(23 * 3600_000);
    expect((await get(p.url, path)).cache).toBe('HIT');
    expect(upstream()).toBe(asked);
  });
});
