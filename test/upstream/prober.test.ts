import { describe, expect, it } from 'vitest';
import { ChainTracker } from '../../src/chain/tracker.js';
import { createUpstreamPool, type ManagedUpstreamPool } from '../../src/upstream/pool.js';
import { sendJson, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { chainHandler, upstreamConfig } from '../helpers/upstream-kit.js';
import { closeAfterEach } from '../helpers/teardown.js';
import type { UpstreamConfig } from '../../src/config/types.js';

const scope = closeAfterEach<FakeUpstream, ManagedUpstreamPool>();
const fakes = scope.upstreams;

async function setup(heads: number[], patch: Partial<UpstreamConfig> = {}) {
  const hs = heads.map((value) => ({ value }));
  for (const [i, h] of hs.entries()) fakes.push(await startFakeUpstream(chainHandler(`u${i}`, h)));
  const tracker = new ChainTracker();
  const pool = (scope.front = createUpstreamPool({
    urls: fakes.map((f) => f.url),
    config: upstreamConfig(patch),
    tracker,
  }));
  return { pool, tracker, hs };
}

describe('prober', () => {
  it('records each head, feeds the best head to the tracker, and computes lag', async () => {
    const { pool, tracker, hs } = await setup([100, 98, 90], { maxLagBlocks: 2 });
    await pool.probeNow();
    expect(tracker.bestHead()).toBe(100);
    expect(pool.status().map((s) => [s.head, s.lag, s.lagging, s.healthy])).toEqual([
      [100, 0, false, true],
      [98, 2, false, true],
      [90, 10, true, true],
    ]);

    // The chain moves; u2 is frozen: its probes succeed but it falls further behind.
    hs[0]!.value = 105;
    hs[1]!.value = 105;
    await pool.probeNow();
    expect(tracker.bestHead()).toBe(105);
    expect(pool.status().map((s) => s.lag)).toEqual([0, 0, 15]);
    expect(pool.status()[2]).toMatchObject({ healthy: true, lagging: true });
  });

  it('the best head never goes backwards when the leading upstream regresses', async () => {
    const { pool, tracker, hs } = await setup([100, 99]);
    await pool.probeNow();
    hs[0]!.value = 80;
    await pool.probeNow();
    expect(tracker.bestHead()).toBe(100);
    expect(pool.status()[0]).toMatchObject({ head: 80, lag: 20 });
  });

  it('a failed probe marks the upstream unhealthy with its error; recovery marks it healthy', async () => {
    const { pool } = await setup([100, 100]);
    fakes[1]!.setHandler((_req, res) => sendJson(res, 200, '{"code":0,"msg":"success","data":{}}')); // no height
    await pool.probeNow();
    expect(pool.status()[1]).toMatchObject({ healthy: false, head: null });
    expect(pool.status()[1]!.lastError).toMatch(/without a height/);
    fakes[1]!.setHandler(chainHandler('u1', { value: 101 }));
    await pool.probeNow();
    expect(pool.status()[1]).toMatchObject({ healthy: true, head: 101 });
  });

  it('probe failures count towards the breaker', async () => {
    const { pool } = await setup([100], { breakerFailures: 2 });
    fakes[0]!.setHandler((_req, res) => sendJson(res, 500, '{}'));
    await pool.probeNow();
    expect(pool.status()[0]!.breaker).toBe('closed');
    await pool.probeNow();
    expect(pool.status()[0]!.breaker).toBe('open');
  });

  it('ready() is false until the first probe round, then follows health and lag', async () => {
    const { pool } = await setup([100, 100], { probeIntervalMs: 20 });
    expect(pool.ready()).toBe(false);
    pool.start();
    await pool.firstProbe;
    expect(pool.ready()).toBe(true);
    // The interval keeps probing: both go down → not ready.
    for (const f of fakes) f.setHandler((_req, res) => sendJson(res, 502, 'bad gateway'));
    await waitFor(() => !pool.ready(), 3000, 'not ready after failing probes');
    for (const f of fakes) f.setHandler(chainHandler('ux', { value: 101 }));
    await waitFor(() => pool.ready(), 3000, 'ready again');
  });

  it('ready() is false when the only healthy upstream lags', async () => {
    const { pool } = await setup([100, 90], { maxLagBlocks: 2 });
    await pool.probeNow();
    expect(pool.ready()).toBe(true);
    fakes[0]!.setHandler((_req, res) => sendJson(res, 500, '{}'));
    await pool.probeNow();
    expect(pool.status().map((s) => s.healthy)).toEqual([false, true]);
    expect(pool.ready()).toBe(false);
  });
});
