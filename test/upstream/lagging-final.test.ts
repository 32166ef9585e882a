/**
 * Data an upstream does not have is never taken from it. Three simulators, one
 * frozen 60 blocks behind and faster: final blocks above its head are asked of
 * the upstreams that have them (as final data), never cached as "no transactions"
 * or "not found" for a day.
 */
import { describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { closeAfterEach } from '../helpers/teardown.js';
import { dataOf, get, maxAge, startReplica, type Replica } from '../helpers/replica.js';
import { untilHead } from '../helpers/until.js';

const scope = closeAfterEach<SimulatorHandle, Replica>();
const sims = scope.upstreams;

describe('one upstream frozen 60 blocks behind, and faster', () => {
  it('final blocks above its head come from the upstream that has them', async () => {
    // Two fresh ones: a head 60 blocks ahead is believed only when another upstream confirms it.
    sims.push(...(await Promise.all([0, 1, 2].map(() => startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })))));
    const [frozen, fresh, twin] = [sims[0]!, sims[1]!, sims[2]!];
    frozen.setFaults({ freeze: true });
    for (const s of [fresh, twin]) {
      s.chain.advance(60);
      s.setFaults({ latencyMs: 100 }); // the frozen one looks faster (probes, EWMA), by far
    }
    const proxy = (scope.front = await startReplica([frozen.url, fresh.url, twin.url], {
      upstream: { probeIntervalMs: 50, hedgeAfterMs: 0 },
    }));
    const head = fresh.chain.head();
    await untilHead(proxy!.tracker, (h) => h === head, 'best head known', 5000);
    // The proxy learns the final height from a final block (through the fresh upstream: head-sensitive until then).
    const learn = await get(proxy.url, `/block/detail?h=${head - 16}`);
    expect(dataOf(learn.text)).toMatchObject({ is_finality: true });
    expect(proxy.tracker.finalHeight()).toBe(head - 16);
    const before = { txs: frozen.stats()['tx/list'] ?? 0, blocks: frozen.stats()['block/detail'] ?? 0 };

    for (const h of [head - 20, head - 30, frozen.chain.head() + 1]) {
      const txs = await get(proxy.url, `/tx/list?block_height=${h}&page=1&page_size=20`);
      expect(txs.status).toBe(200);
      expect(dataOf(txs.text)['count'], `tx/list?block_height=${h}`).toBeGreaterThan(0);
      expect(maxAge(txs.headers)).toBeGreaterThan(3600); // final, and really there
      const block = await get(proxy.url, `/block/detail?h=${h}`);
      expect(block.status, `block/detail?h=${h}`).toBe(200);
      expect(dataOf(block.text)).toMatchObject({ height: h, is_finality: true });
    }
    expect(frozen.stats()['tx/list'] ?? 0).toBe(before.txs);
    expect(frozen.stats()['block/detail'] ?? 0).toBe(before.blocks);

    // Below the frozen head (minus the finality depth) the faster one may serve. Selection
    // is least in flight first, so a probe in flight on it at that instant sends one
    // request elsewhere: of eight such requests, it serves some.
    for (let i = 0; i < 8; i++) {
      const old = await get(proxy.url, `/tx/list?block_height=${frozen.chain.head() - 40 - i}&page=1&page_size=20`);
      expect(old.status).toBe(200);
    }
    expect(frozen.stats()['tx/list'] ?? 0).toBeGreaterThan(before.txs);
  });

  it('when no upstream has the block yet, its empty answer is kept a few seconds at most', async () => {
    sims.push(await startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 }));
    const proxy = (scope.front = await startReplica([sims[0]!.url], { upstream: { probeIntervalMs: 50 } }));
    const future = sims[0]!.chain.head() + 5;
    const r = await get(proxy.url, `/tx/list?block_height=${future}&page=1&page_size=20`);
    expect(r.status).toBe(200);
    expect(dataOf(r.text)['count']).toBe(0);
    expect(maxAge(r.headers)).toBeLessThanOrEqual(5);
  });
});
