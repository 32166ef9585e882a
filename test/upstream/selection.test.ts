import { describe, expect, it } from 'vitest';
import { ChainTracker } from '../../src/chain/tracker.js';
import { createUpstreamPool, type ManagedUpstreamPool } from '../../src/upstream/pool.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { chainHandler, gate, recordingMetrics, request, upstreamConfig } from '../helpers/upstream-kit.js';
import { closeAfterEach } from '../helpers/teardown.js';

const scope = closeAfterEach<FakeUpstream, ManagedUpstreamPool>();
const fakes = scope.upstreams;

describe('least-loaded selection in the pool', () => {
  it('spreads concurrent requests over upstreams by in-flight count', async () => {
    const gates = [0, 1, 2].map((i) => gate(chainHandler(`u${i}`, { value: 1 })));
    for (const g of gates) fakes.push(await startFakeUpstream(g.handler));
    const metrics = recordingMetrics();
    const pool = (scope.front = createUpstreamPool({
      urls: fakes.map((f) => f.url),
      config: upstreamConfig(),
      tracker: new ChainTracker(),
      metrics,
    }));
    const pending = Array.from({ length: 6 }, () => pool!.fetch(request()));
    await Promise.all(gates.map((g) => g.until(() => g.held() === 2, 'two held requests per upstream')));
    expect(pool.status().map((s) => s.inFlight)).toEqual([2, 2, 2]);
    for (const g of gates) g.open();
    const answers = await Promise.all(pending);
    expect(answers.map((a) => a.upstream).sort()).toEqual(['u0', 'u0', 'u1', 'u1', 'u2', 'u2']);
    expect(pool.status().map((s) => s.inFlight)).toEqual([0, 0, 0]);
  });

  it('a slow upstream accumulates in-flight requests and new traffic goes elsewhere', async () => {
    const slow = gate(chainHandler('u0', { value: 1 }));
    fakes.push(await startFakeUpstream(slow.handler), await startFakeUpstream(chainHandler('u1', { value: 1 })));
    const pool = (scope.front = createUpstreamPool({
      urls: fakes.map((f) => f.url),
      config: upstreamConfig(),
      tracker: new ChainTracker(),
    }));
    const stuck = pool.fetch(request());
    await slow.until(() => slow.held() === 1, 'a request held');
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push((await pool.fetch(request())).upstream);
    expect(answers).toEqual(['u1', 'u1', 'u1', 'u1', 'u1']);
    slow.open();
    expect((await stuck).upstream).toBe('u0');
  });
});
