/**
 * One slow upstream (a latency fault) among three. With hedging after 50 ms,
 * every miss answers in well under half the injected latency, and the typical
 * miss costs about what a fast upstream costs (under 300 ms).
 */
import { describe, expect, it } from 'vitest';
import { counter, get, type Got, simulatorTrio } from '../helpers/replica.js';

const trio = simulatorTrio();

/** Long, so that what a loaded machine adds to a miss stays far below half of it. */
const SLOW_MS = 3000;
/** A typical miss, hedged: about what a fast upstream costs. */
const TYPICAL_MS = 300;

describe('three simulators, one slow', () => {
  it('keeps miss latency near the fast upstreams through hedging', async () => {
    const { sims, proxy } = await trio.start({
      upstream: { probeIntervalMs: 100, hedgeAfterMs: 50, hedgeQuantile: 0, attemptTimeoutMs: 2 * SLOW_MS },
    });
    // Warm-up while all are fast: keep-alive connections to every upstream and the JIT, so the
    // timings below measure hedging rather than cold starts.
    await Promise.all(Array.from({ length: 12 }, (_, i) => get(proxy!.url, `/block/detail?h=${4_840_500 + i}`)));
    sims[0]!.setFaults({ latencyMs: SLOW_MS });
    const slowBefore = sims[0]!.stats()._total ?? 0;

    // Concurrent bursts of distinct cold keys: least-in-flight spreads each burst over
    // all three upstreams, so the slow one keeps getting first attempts.
    const answers: Got[] = [];
    for (let burst = 0; burst < 4; burst++) {
      const paths = Array.from({ length: 12 }, (_, i) => `/block/detail?h=${4_841_000 + burst * 100 + i}`);
      answers.push(...(await Promise.all(paths.map((p) => get(proxy!.url, p)))));
    }

    // A failed answer is shown with its envelope (its code and detail say which stage refused it).
    const failed = answers.filter((a) => a.status !== 200 || a.cache !== 'MISS');
    expect(failed.map((a) => `${a.status} ${a.cache} ${a.text.slice(0, 300)}`)).toEqual([]);
    const worst = Math.max(...answers.map((a) => a.ms));
    const sorted = answers.map((a) => a.ms).sort((x, y) => x - y);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    expect(worst, `slowest miss ${Math.round(worst)} ms`).toBeLessThan(SLOW_MS / 2);
    expect(median, `median miss ${Math.round(median)} ms`).toBeLessThan(TYPICAL_MS);
    // The slow upstream really was asked (not merely avoided), and the hedges answered.
    expect((sims[0]!.stats()._total ?? 0) - slowBefore).toBeGreaterThan(0);
    expect(await counter(proxy.url, 'chainproxy_upstream_hedges_total')).toBeGreaterThan(0);
  });
});
