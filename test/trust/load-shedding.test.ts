/**
 * Load shedding at the upstream: misses beyond the connections and the bounded
 * queue of one upstream get a fast 503 envelope with Retry-After; the queued
 * ones are answered; time spent queued inside the proxy never counts against
 * the upstream (its breaker stays closed).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { counter, get, startReplica, type Replica } from '../helpers/replica.js';

let sim: SimulatorHandle | undefined;
let proxy: Replica | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await sim?.close();
  sim = undefined;
});

describe('a slow upstream and a burst of distinct misses', () => {
  it('the queue past its bound is shed fast with 503 + Retry-After; the rest is answered; the breaker stays closed', async () => {
    sim = await startSimulator({ port: 0, blockIntervalMs: 0, seed: 3 });
    proxy = await startReplica([sim.url], {
      upstream: {
        connections: 2,
        maxQueue: 6,
        // Each attempt takes ~300 ms on the wire; queued ones wait for up to 4 rounds (1.2 s),
        // longer than the attempt timeout: that wait must not count as the upstream's.
        attemptTimeoutMs: 800,
        totalDeadlineMs: 5000,
        hedgeAfterMs: 0,
        breakerFailures: 3,
      },
      limits: { requestTimeoutMs: 10_000 },
    });
    sim.setFaults({ latencyMs: 300 });
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const r = await get(proxy!.url, `/tx/list?page=${i + 1}&page_size=5`);
        return { ...r, at: performance.now() - started };
      }),
    );
    const ok = results.filter((r) => r.status === 200);
    const shed = results.filter((r) => r.status === 503);
    expect(ok.length + shed.length).toBe(40);
    expect(ok.length).toBe(8); // 2 on the wire + 6 queued
    for (const r of shed) {
      expect(JSON.parse(r.text)).toEqual({ code: 5031, msg: 'upstream busy; retry later', data: null });
      expect(r.headers['retry-after']).toBe('1');
      expect(r.headers['cache-control']).toBe('no-store');
      expect(r.ms).toBeLessThan(250); // fast, not a slow timeout
    }
    expect(proxy.pool.status()[0]!.breaker).toBe('closed');
    expect(await counter(proxy.url, 'chainproxy_upstream_shed_total', { upstream: 'u0' })).toBe(32);
    expect(await counter(proxy.url, 'chainproxy_upstream_requests_total', { outcome: 'timeout' })).toBe(0);
  });
});
