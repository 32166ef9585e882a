/** How an upstream is picked (load, latency, breaker, tries, probes, head) and the latency statistics behind it. */
import { afterEach, describe, expect, it } from 'vitest';
import { eligible } from '../../src/upstream/eligible.js';
import { selectUpstream, type SelectOptions } from '../../src/upstream/select.js';
import { Upstream } from '../../src/upstream/upstream.js';
import { LatencyStats } from '../../src/upstream/latency.js';
import { noopMetrics } from '../../src/metrics/types.js';
import { upstreamConfig } from '../helpers/upstream-kit.js';
import { fakeClock } from '../helpers/clock.js';

const made: Upstream[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((u) => u.close()));
});

const clock = fakeClock();
function upstreams(n: number): Upstream[] {
  const list = Array.from(
    { length: n },
    (_, i) =>
      new Upstream({
        name: `u${i}`,
        url: `http://127.0.0.1:${40000 + i}`,
        config: upstreamConfig({ breakerFailures: 1 }),
        metrics: noopMetrics,
        clock: clock.now,
      }),
  );
  made.push(...list);
  return list;
}
const any = (tried: string[] = []): SelectOptions => ({
  freshness: 'any',
  bestHead: null,
  maxLagBlocks: 2,
  tried: new Set(tried),
});
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

  it('head requests: fresh only; else the highest head, marked; hedges never go to a lagging one', () => {
    const [a, b, c] = upstreams(3) as [Upstream, Upstream, Upstream];
    a.head = 90;
    b.head = 100;
    c.head = 95;
    const head = (tried: string[] = []): SelectOptions => ({
      freshness: 'head',
      bestHead: 100,
      maxLagBlocks: 2,
      tried: new Set(tried),
    });
    expect(selectUpstream([a, b, c], head())).toMatchObject({ upstream: b, laggingFallback: false });
    b.breaker.failure('pass');
    expect(selectUpstream([a, b, c], head())).toMatchObject({ upstream: c, laggingFallback: true });
    expect(selectUpstream([a, b, c], { ...head(), untriedOnly: true })).toBeNull();
    expect(pick([a, b, c], any())).toBe('u0');
  });

  it(
    'head requests prefer an upstream at the best head over a fresh one behind it; ' +
      'retries still go to the one behind',
    () => {
      const [a, b] = upstreams(2) as [Upstream, Upstream];
      a.head = 99;
      b.head = 100;
      const head = (tried: string[] = []): SelectOptions => ({
        freshness: 'head',
        bestHead: 100,
        maxLagBlocks: 2,
        tried: new Set(tried),
      });
      expect(pick([a, b], head())).toBe('u1');
      b.inFlight = 3;
      expect(pick([a, b], head())).toBe('u1');
      expect(selectUpstream([a, b], head(['u1']))).toMatchObject({ upstream: a, laggingFallback: false });
      // Requests that do not depend on the head keep least-outstanding-requests.
      expect(pick([a, b], any())).toBe('u0');
    },
  );

  it('never hedges a request about a block onto an upstream that has not the block', () => {
    const [a, b] = upstreams(2) as [Upstream, Upstream];
    a.head = 100;
    b.head = 99;
    const block = (tried: string[], untriedOnly: boolean): SelectOptions => ({
      freshness: 'head',
      bestHead: 100,
      maxLagBlocks: 2,
      tried: new Set(tried),
      untriedOnly,
      height: { value: 100, final: false },
    });
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

describe('eligible: which upstreams may take an attempt at all', () => {
  const strict = (tried: string[] = [], sittingOut: string[] = []): SelectOptions => ({
    freshness: 'any',
    bestHead: 100,
    maxLagBlocks: 2,
    tried: new Set(tried),
    untriedOnly: true,
    strict: true,
    sittingOut: (name) => sittingOut.includes(name),
  });

  it('any attempt: the breaker lets a call through; a hedge: also untried', () => {
    const [a] = upstreams(1) as [Upstream];
    expect(eligible(a, any(['u0']))).toBe(true);
    expect(eligible(a, { ...any(['u0']), untriedOnly: true })).toBe(false);
    a.breaker.failure('pass');
    expect(eligible(a, any())).toBe(false);
  });

  it('a confirmation or ballot (strict): also healthy by its probe, fresh and not sitting out', () => {
    const [a] = upstreams(1) as [Upstream];
    a.head = 100;
    expect(eligible(a, strict())).toBe(false); // not probed yet
    a.probeOk = true;
    expect(eligible(a, strict())).toBe(true);
    expect(eligible(a, strict(['u0']))).toBe(false);
    expect(eligible(a, strict([], ['u0']))).toBe(false);
    a.head = 97;
    expect(eligible(a, strict())).toBe(false);
    expect(eligible(a, { ...strict(), strict: false })).toBe(true);
  });

  it('strict selection falls back to no upstream, never to a benched, lagging or unprobed one', () => {
    const [a, b, c] = upstreams(3) as [Upstream, Upstream, Upstream];
    for (const u of [a, b, c]) u.head = 100;
    a.probeOk = true;
    b.probeOk = true;
    b.head = 90;
    expect(pick([a, b, c], strict([], ['u1']))).toBe('u0');
    expect(pick([a, b, c], strict([], ['u0']))).toBeNull();
    expect(pick([a, b, c], { ...strict([], ['u0']), strict: false })).toBe('u1');
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
