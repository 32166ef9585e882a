import { describe, expect, it } from 'vitest';
import { ChainTracker } from '../../src/chain/tracker.js';
import { createUpstreamPool, type ManagedUpstreamPool } from '../../src/upstream/pool.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { chainHandler, gate, request, upstreamConfig } from '../helpers/upstream-kit.js';
import { closeAfterEach } from '../helpers/teardown.js';

const scope = closeAfterEach<FakeUpstream, ManagedUpstreamPool>();
const fakes = scope.upstreams;

describe('status()', () => {
  it('reports name, url, health, lag, breaker, in-flight, latency and last error per upstream', async () => {
    const held = gate(chainHandler('u1', { value: 97 }));
    held.open();
    fakes.push(await startFakeUpstream(chainHandler('u0', { value: 100 })), await startFakeUpstream(held.handler));
    const pool = (scope.front = createUpstreamPool({
      urls: fakes.map((f) => f.url),
      config: upstreamConfig({ maxLagBlocks: 2 }),
      tracker: new ChainTracker(),
    }));

    const before = pool.status();
    expect(before.map((s) => s.name)).toEqual(['u0', 'u1']);
    expect(before[0]).toEqual({
      name: 'u0',
      url: fakes[0]!.url,
      healthy: false,
      lagging: false,
      head: null,
      lag: null,
      breaker: 'closed',
      inFlight: 0,
      latencyP50Ms: null,
      latencyP99Ms: null,
      lastError: null,
      lastErrorAgoMs: null,
    });

    await pool.probeNow();
    for (let i = 0; i < 5; i++) await pool.fetch(request());
    const s = pool.status();
    expect(s[0]).toMatchObject({
      healthy: true,
      lagging: false,
      head: 100,
      lag: 0,
      breaker: 'closed',
      inFlight: 0,
      lastError: null,
    });
    expect(s[1]).toMatchObject({ healthy: true, lagging: true, head: 97, lag: 3 });
    for (const u of s) {
      expect(u.latencyP50Ms).toBeGreaterThan(0);
      expect(u.latencyP99Ms).toBeGreaterThanOrEqual(u.latencyP50Ms!);
    }

    // In-flight is visible while a request is held.
    const slow = gate(chainHandler('u0', { value: 100 }));
    fakes[0]!.setHandler(slow.handler);
    fakes[1]!.setHandler(slow.handler);
    const p = pool.fetch(request());
    await slow.until(() => slow.held() === 1, 'a request held');
    expect(pool.status().reduce((n, u) => n + u.inFlight, 0)).toBe(1);
    slow.open();
    await p;

    // The last error is kept for the operator.
    fakes[0]!.setHandler((_req, res) => sendJson(res, 503, 'down'));
    fakes[1]!.setHandler((_req, res) => sendJson(res, 503, 'down'));
    await pool.fetch(request()).catch(() => undefined);
    const failed = pool.status().find((u) => u.lastError === 'UPSTREAM_ERROR: HTTP 503');
    // With its age: an old error beside a healthy upstream is history.
    expect(failed?.lastErrorAgoMs).toEqual(expect.any(Number));
    expect(failed!.lastErrorAgoMs!).toBeGreaterThanOrEqual(0);
    expect(failed!.lastErrorAgoMs!).toBeLessThan(5000);
  });

  it('uses configured names, shows URLs without credentials, and keeps base path and basic auth', async () => {
    fakes.push(await startFakeUpstream(chainHandler('x', { value: 1 })));
    const u = new URL(fakes[0]!.url);
    const pool = (scope.front = createUpstreamPool({
      urls: [`http://alice:s%3Dcret@${u.host}/api/v1/`],
      names: ['primary'],
      config: upstreamConfig(),
      tracker: new ChainTracker(),
    }));
    expect(pool.status()[0]).toMatchObject({ name: 'primary', url: `http://${u.host}/api/v1` });
    const res = await pool.fetch(request('/tx/list?page=2'));
    expect(res.upstream).toBe('primary');
    const seen = fakes[0]!.requests.at(-1)!;
    expect(seen.url).toBe('/api/v1/tx/list?page=2');
    expect(seen.headers['authorization']).toBe(`Basic ${Buffer.from('alice:s=cret').toString('base64')}`);
  });
});

describe('close()', () => {
  it('destroys in-flight requests and refuses new ones', async () => {
    const hang = gate(chainHandler('u0', { value: 1 }));
    fakes.push(await startFakeUpstream(hang.handler));
    const pool = (scope.front = createUpstreamPool({
      urls: [fakes[0]!.url],
      config: upstreamConfig({ probeIntervalMs: 10 }),
      tracker: new ChainTracker(),
    }));
    pool.start();
    const p = pool.fetch(request()).catch((e: unknown) => e);
    await hang.until(() => hang.held() >= 1, 'a request held');
    await pool.close();
    await expect(p).resolves.toMatchObject({ kind: 'SHUTTING_DOWN' });
    await expect(pool.fetch(request())).rejects.toMatchObject({ kind: 'SHUTTING_DOWN' });
    await pool.firstProbe; // resolved even if the round never finished
    scope.front = undefined;
  });
});

describe('empty pool', () => {
  it('is never ready and answers UPSTREAM_UNAVAILABLE', async () => {
    const empty = createUpstreamPool({ urls: [], config: upstreamConfig(), tracker: new ChainTracker() });
    await empty.probeNow();
    expect(empty.ready()).toBe(false);
    expect(empty.status()).toEqual([]);
    await expect(empty.fetch(request())).rejects.toMatchObject({ kind: 'UPSTREAM_UNAVAILABLE' });
    await empty.close();
  });
});
