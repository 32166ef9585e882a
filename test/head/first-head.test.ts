/**
 * The first head comes from the first probe round (its median), never from an
 * answer that beat it: with the two honest upstreams slow, client requests
 * sent at startup are answered by a liar 50 000 blocks ahead, and the heights
 * its data shows must not become the head, in either invalidation mode.
 */
import { describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import type { ProxyHandle } from '../../src/app.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { closeAfterEach } from '../helpers/teardown.js';
import { startTestProxy } from '../helpers/proxy.js';
import { counter, get } from '../helpers/replica.js';
import { PRECISE } from '../invalidation/kit.js';
import { untilHead } from '../helpers/until.js';

const AHEAD = 50_000;

const scope = closeAfterEach<SimulatorHandle, ProxyHandle>();
const sims = scope.upstreams;

describe.each(['precise', 'head'] as const)(
  'answers from a liar before the first probe round (%s invalidation)',
  (mode) => {
    it('never set the head; the liar is refuted and sits out', async () => {
      const startTime = Date.now();
      sims.push(...(await Promise.all([0, 1, 2].map(() => startSimulator({ blockIntervalMs: 0, startTime })))));
      sims[2]!.chain.advance(AHEAD);
      for (const s of sims.slice(0, 2)) s.setFaults({ latencyMs: 300 });
      const honest = sims[0]!.chain.head();
      const proxy = (scope.front = await startTestProxy(
        sims.map((s) => s.url),
        {
          upstream: { probeIntervalMs: 100, quorum: 2, hedgeAfterMs: 5, hedgeQuantile: 0, sitOutMs: 60_000 },
          ...(mode === 'precise' ? { invalidation: PRECISE } : {}),
        },
      ));
      const p = proxy;
      const early = await Promise.all([1, 2, 3, 4].map((i) => get(p.url, `/tx/list?page=${i}&page_size=20`)));
      expect(early.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      await untilHead(p.tracker, (h) => h !== null, 'a head believed', 5000);
      expect(p.tracker.bestHead()).toBeLessThanOrEqual(honest);
      await waitFor(
        async () =>
          (await counter(p.url, 'chainproxy_upstream_sit_outs_total', { upstream: 'u2', reason: 'head' })) >= 1,
        8000,
        'the liar benched',
      );
      expect(p.tracker.bestHead()).toBeLessThanOrEqual(honest);
    }, 20_000);
  },
);
