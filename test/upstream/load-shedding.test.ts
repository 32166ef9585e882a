/**
 * Load shedding at the upstream: misses beyond the connections and the bounded
 * queue of one upstream get a fast 503 envelope with Retry-After; the queued
 * ones are answered; time spent queued inside the proxy never counts against
 * the upstream (no timeout, breaker closed), even when it exceeds the attempt
 * timeout.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sendJson, waitFor } from '../helpers/fake-upstream.js';
import { gate } from '../helpers/upstream-kit.js';
import { counter, get, startReplica, type Got, type Replica } from '../helpers/replica.js';
import { fixture, startChainFake, type ChainFake } from '../helpers/chain-fake.js';

let fake: ChainFake | undefined;
let proxy: Replica | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await fake?.close();
  fake = undefined;
});

const ANSWER_MS = 800;

describe('a slow upstream and a burst of distinct misses', () => {
  it('past connections + queue: a fast 503 + Retry-After; the rest is answered; the breaker stays closed', async () => {
    fake = await startChainFake(4_842_503);
    const body = fixture('tx/list');
    // Held until the burst is in, then each answer takes ANSWER_MS: the last queued request
    // waits 3 rounds (2.4 s), longer than the attempt timeout (2 s).
    const g = gate(async (_req, res) => {
      await new Promise((r) => setTimeout(r, ANSWER_MS));
      sendJson(res, 200, body);
    });
    fake.on('tx/list', g.handler);
    proxy = await startReplica([fake.url], {
      upstream: {
        connections: 1,
        maxQueue: 3,
        attemptTimeoutMs: 2000,
        totalDeadlineMs: 8000,
        hedgeAfterMs: 0,
        breakerFailures: 3,
      },
      limits: { requestTimeoutMs: 10_000 },
    });
    const results: Got[] = [];
    const all = Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        results.push(await get(proxy!.url, `/tx/list?page=${i + 1}&page_size=5`));
      }),
    );
    await waitFor(() => results.length === 16 && g.held() === 1, 10_000, '16 shed answers, 1 request on the wire');
    const shed = [...results];
    g.open();
    await all;

    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(4); // 1 on the wire + 3 queued
    for (const r of shed) {
      expect(r.status).toBe(503);
      expect(JSON.parse(r.text)).toEqual({ code: 5031, msg: 'upstream busy; retry later', data: null });
      expect(r.headers['retry-after']).toBe('1');
      expect(r.headers['cache-control']).toBe('no-store');
      expect(r.ms).toBeLessThan(1000); // not a slow timeout
    }
    expect(proxy.pool.status()[0]!.breaker).toBe('closed');
    expect(await counter(proxy.url, 'chainproxy_upstream_shed_total', { upstream: 'u0' })).toBe(16);
    expect(await counter(proxy.url, 'chainproxy_upstream_requests_total', { outcome: 'timeout' })).toBe(0);
    expect(fake.count('/tx/list')).toBe(4);
  });
});
