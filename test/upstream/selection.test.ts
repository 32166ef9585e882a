import { afterEach, describe, expect, it } from 'vitest';
import { ChainTracker } from '../../src/chain/tracker.js';
import { selectUpstream, type SelectOptions } from '../../src/upstream/select.js';
import { Upstream } from '../../src/upstream/upstream.js';
import { LatencyStats } from '../../src/upstream/latency.js';
import { createUpstreamPool, type ManagedUpstreamPool } from '../../src/upstream/pool.js';
import { startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { chainHandler, gate, manualClock, recordingMetrics, request, upstreamConfig } from '../helpers/upstream-kit.js';
import { noopMetrics } from '../../src/metrics/types.js';

const made: Upstream[] = [];
const fakes: FakeUpstream[] = [];
let pool: ManagedUpstreamPool | undefined;

afterEach(async () => {
  await pool?.close();
  pool = undefined;
  await Promise.all(fakes.splice(0).map((f) => f.close()));
  await Promise.all(made.splice(0).map((u) => u.close()));
});

const clock = manualClock();
function upstreams(n: number): Upstream[] {
  const list = Array.from({ length: n }, (_, i) => new Upstream({ name: `u${i}`, url: `http://127.0.0.1:${40000 + i}`, config: upstreamConfig({ breakerFailures: 1 }), metrics: noopMetrics, clock: clock.now }));
  made.push(...list);
  return list;
}
const any = (tried: string[] = []): SelectOptions => ({ freshness: 'any', bestHead: null, maxLagBlocks: 2, tried: new Set(tried) });
const pick = (list: Upstream[], o: SelectOptions) => selectUpstream(list, o)?.upstream.name ?? null;

describe('selectUpstream (unit)', () => {
  it('prefers the least in-flight, then the lower latency EWMA, then configuration order', () => {
    const [a, b, c] = upstreams(3) as [Upstream, Upstream, Upstream];
    expect(pick([a, b, c], any())).toBe('u0');
    a.inFlight = 2;
    b.inFlight = 1;
    c.inFlight = 1;
    b.latency.record(50);
    c.latency.record(10);
    expect(pick([a, b, c], any())).toBe('u2');
    c.inFlight = 3;
    expect(pick([a, b, c], any())).toBe('u1');
  });

  it('skips upstreams whose breaker is open, and returns null when none is left', () => {
    const [a, b] = upstreams(2) as [Upstream, Upstream];
    a.breaker.failure('pass');
    expect(pick([a, b], any())).toBe('u1');
    b.breaker.failure('pass');
    expect(selectUpstream([a, b], any())).toBeNull();
  });

  it('prefers untried upstreams, but retries a tried one rather than none', () => {
    const [a, b] = upstreams(2) as [Upstream, Upstream];
    expect(pick([a, b], any(['u0']))).toBe('u1');
    expect(pick([a, b], any(['u0', 'u1']))).toBe('u0');
    expect(selectUpstream([a, b], { ...any(['u0', 'u1']), untriedOnly: true })).toBeNull();
  });

  it('prefers upstreams whose last probe succeeded (or not probed yet)', () => {
    const [a, b] = upstreams(2) as [Upstream, Upstream];
    a.probeOk = false;
    expect(pick([a, b], any())).toBe('u1');
    b.probeOk = false;
    expect(pick([a, b], any())).toBe('u0'); // nobody healthy: still try rather than fail
  });

  it("head requests: fresh only; else the highest head, marked; hedges never go to a lagging one", () => {
    const [a, b, c] = upstreams(3) as [Upstream, Upstream, Upstream];
    a.head = 90;
    b.head = 100;
    c.head = 95;
    const head = (tried: string[] = []): SelectOptions => ({ freshness: 'head', bestHead: 100, maxLagBlocks: 2, tried: new Set(tried) });
    expect(selectUpstream([a, b, c], head())).toMatchObject({ upstream: b, laggingFallback: false });
    b.breaker.failure('pass');
    expect(selectUpstream([a, b, c], head())).toMatchObject({ upstream: c, laggingFallback: true });
    expect(selectUpstream([a, b, c], { ...head(), untriedOnly: true })).toBeNull();
    expect(pick([a, b, c], any())).toBe('u0');
  });

  it('head requests prefer an upstream at the best head over a fresh one behind it; retries still go to the one behind', () => {
    const [a, b] = upstreams(2) as [Upstream, Upstream];
    a.head = 99;
    b.head = 100;
    const head = (tried: string[] = []): SelectOptions => ({ freshness: 'head', bestHead: 100, maxLagBlocks: 2, tried: new Set(tried) });
    expect(pick([a, b], head())).toBe('u1');
    b.inFlight = 3;
    expect(pick([a, b], head())).toBe('u1');
    expect(selectUpstream([a, b], head(['u1']))).toMatchObject({ upstream: a, laggingFallback: false });
    // Requests that do not depend on the head keep least-outstanding-requests.
    expect(pick([a, b], any())).toBe('u0');
  });

  it('never hedges a request about a block onto an upstream that has not the block', () => {
    const [a, b] = upstreams(2) as [Upstream, Upstream];
    a.head = 100;
    b.head = 99;
    const block = (tried: string[], untriedOnly: boolean): SelectOptions => ({ freshness: 'head', bestHead: 100, maxLagBlocks: 2, tried: new Set(tried), untriedOnly, height: { value: 100, final: false } });
    expect(selectUpstream([a, b], block(['u0'], true))).toBeNull();
    // A retry may still fall back to it, marked.
    expect(selectUpstream([b], block([], false))).toMatchObject({ upstream: b, uncovered: true });
  });

  it('an upstream with an unknown head is lagging once a best head is known', () => {
    const [a, b] = upstreams(2) as [Upstream, Upstream];
    b.head = 10;
    expect(pick([a, b], { freshness: 'head', bestHead: 10, maxLagBlocks: 0, tried: new Set() })).toBe('u1');
    expect(pick([a, b], { freshness: 'head', bestHead: null, maxLagBlocks: 0, tried: new Set() })).toBe('u0');
  });
});

describe('LatencyStats', () => {
  it('keeps a ring of recent samples for quantiles and an EWMA', () => {
    const s = new LatencyStats(4, 0.5);
    expect(s.quantile(0.5)).toBeNull();
    expect(s.ewma).toBeNull();
    for (const v of [10, 20, 30, 40, 50]) s.record(v); // 10 falls out of the ring
    expect(s.samples).toBe(4);
    expect(s.quantile(0.5)).toBe(30);
    expect(s.quantile(0.99)).toBe(50);
    expect(s.ewma).toBeCloseTo(40.625);
  });
});

describe('least-loaded selection in the pool', () => {
  it('spreads concurrent requests over upstreams by in-flight count', async () => {
    const gates = [0, 1, 2].map((i) => gate(chainHandler(`u${i}`, { value: 1 })));
    for (const g of gates) fakes.push(await startFakeUpstream(g.handler));
    const metrics = recordingMetrics();
    pool = createUpstreamPool({ urls: fakes.map((f) => f.url), config: upstreamConfig(), tracker: new ChainTracker(), metrics });
    const pending = Array.from({ length: 6 }, () => pool!.fetch(request()));
    await waitFor(() => gates.every((g) => g.held() === 2), 3000, 'two held requests per upstream');
    expect(pool.status().map((s) => s.inFlight)).toEqual([2, 2, 2]);
    for (const g of gates) g.open();
    const answers = await Promise.all(pending);
    expect(answers.map((a) => a.upstream).sort()).toEqual(['u0', 'u0', 'u1', 'u1', 'u2', 'u2']);
    expect(pool.status().map((s) => s.inFlight)).toEqual([0, 0, 0]);
  });

  it('a slow upstream accumulates in-flight requests and new traffic goes elsewhere', async () => {
    const slow = gate(chainHandler('u0', { value: 1 }));
    fakes.push(await startFakeUpstream(slow.handler), await startFakeUpstream(chainHandler('u1', { value: 1 })));
    pool = createUpstreamPool({ urls: fakes.map((f) => f.url), config: upstreamConfig(), tracker: new ChainTracker() });
    const stuck = pool.fetch(request());
    await waitFor(() => slow.held() === 1);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push((await pool.fetch(request())).upstream);
    expect(answers).toEqual(['u1', 'u1', 'u1', 'u1', 'u1']);
    slow.open();
    expect((await stuck).upstream).toBe('u0');
  });
});
