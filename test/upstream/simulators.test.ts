/** Integration: the pool in front of three built-in simulators (killed, frozen, slow backends). */
import { describe, expect, it } from 'vitest';
import { ChainTracker } from '../../src/chain/tracker.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { parseHeight } from '../../src/upstream/prober.js';
import { createUpstreamPool, type ManagedUpstreamPool } from '../../src/upstream/pool.js';
import { recordingMetrics, request, upstreamConfig } from '../helpers/upstream-kit.js';
import { closeAfterEach } from '../helpers/teardown.js';
import type { UpstreamConfig } from '../../src/config/types.js';

const scope = closeAfterEach<SimulatorHandle, ManagedUpstreamPool>();
const sims = scope.upstreams;

async function setup(patch: Partial<UpstreamConfig> = {}) {
  sims.push(...(await Promise.all([1, 2, 3].map(() => startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })))));
  const metrics = recordingMetrics();
  const tracker = new ChainTracker();
  const pool = (scope.front = createUpstreamPool({
    urls: sims.map((s) => s.url),
    config: upstreamConfig({ maxLagBlocks: 2, ...patch }),
    tracker,
    metrics,
  }));
  await pool.probeNow();
  return { pool, tracker, metrics };
}

describe('pool in front of simulators', () => {
  it('one backend killed mid-traffic: no request fails', async () => {
    const { pool } = await setup({ breakerFailures: 2 });
    const results = [];
    for (let batch = 0; batch < 10; batch++) {
      if (batch === 3) await sims[0]!.close();
      results.push(
        ...(await Promise.allSettled(
          Array.from({ length: 10 }, (_, i) => pool.fetch(request(`/block/detail?h=${4_841_900 + i}`))),
        )),
      );
    }
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(pool.status()[0]!.breaker).toBe('open');
  });

  it('one backend frozen: never used for head requests, block/max monotonic', async () => {
    const { pool, tracker } = await setup();
    sims[2]!.setFaults({ freeze: true });
    sims[0]!.chain.advance(5);
    sims[1]!.chain.advance(5);
    await pool.probeNow();
    expect(pool.status()[2]).toMatchObject({ lagging: true, lag: 5, healthy: true });
    let served = 0;
    const accept = (r: { json: Record<string, unknown> }) => {
      const h = parseHeight(r.json);
      return h !== null && h >= served ? null : 'behind';
    };
    for (let i = 0; i < 200; i++) {
      if (i % 50 === 0) {
        sims[0]!.chain.advance(1);
        sims[1]!.chain.advance(1);
        await pool.probeNow();
      }
      const res = await pool.fetch(request('/block/max', 'head', { accept }));
      expect(res.upstream).not.toBe('u2');
      const h = parseHeight(res.json)!;
      expect(h).toBeGreaterThanOrEqual(served);
      served = h;
    }
    expect(served).toBe(tracker.bestHead());
  });

  it('one backend slow: hedging keeps latency near the fast ones', async () => {
    const { pool, metrics } = await setup({ hedgeAfterMs: 40 });
    sims[0]!.setFaults({ latencyMs: 2000 });
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => pool.fetch(request(`/tx/list?page=${i + 1}&page_size=20`))),
    );
    expect(performance.now() - started).toBeLessThan(1500);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(metrics.hedges.length).toBeGreaterThan(0);
  });
});
