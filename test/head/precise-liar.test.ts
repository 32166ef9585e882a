/**
 * Three simulators behind the proxy, the third 50 000 blocks ahead on every
 * answer, UPSTREAM_QUORUM 2, precise invalidation with its block reader
 * running, and clients asking for the pages of addresses the coming blocks
 * name. The liar's head is never believed and it is benched, as in head mode.
 */
import { describe, expect, it } from 'vitest';
import { blockNames, startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { closeAfterEach } from '../helpers/teardown.js';
import { counter, get, startReplica, type Replica } from '../helpers/replica.js';
import { PRECISE } from '../invalidation/kit.js';
import { untilHead } from '../helpers/until.js';

const AHEAD = 50_000;

const scope = closeAfterEach<SimulatorHandle, Replica>();
const sims = scope.upstreams;

describe.each(['precise', 'head'] as const)('a persistent liar 50 000 blocks ahead (%s invalidation)', (mode) => {
  it('its head is never believed and it sits out', async () => {
    const startTime = Date.now();
    sims.push(...(await Promise.all([0, 1, 2].map(() => startSimulator({ blockIntervalMs: 0, startTime })))));
    sims[2]!.chain.advance(AHEAD);
    const honest = () => sims[0]!.chain.head();
    const start = honest();
    const named = [...new Set(Array.from({ length: 20 }, (_, i) => [...blockNames(1, start + 1 + i)]).flat())].slice(
      0,
      20,
    );
    const pages = named.flatMap((a) => [`/address/info?address=${a}`, `/tx/listByAddress?address=${a}`]);
    const proxy = (scope.front = await startReplica(
      sims.map((s) => s.url),
      {
        upstream: { probeIntervalMs: 200, probeDenseMs: 50, quorum: 2, sitOutMs: 60_000 },
        ...(mode === 'precise' ? { invalidation: PRECISE } : {}),
      },
    ));
    const p = proxy;
    let worst = 0;
    let benched = false;
    // Rounds until the liar sits out (its refutation comes from the probes, on their own timer): bounded by time,
    // not by a count of rounds, which a fast machine runs before the probes have compared the heads.
    const deadline = Date.now() + 20_000;
    for (let round = 1; Date.now() < deadline && !benched; round++) {
      if (round % 10 === 0) for (const s of sims) s.chain.advance(1);
      await Promise.all(
        [pages[round % pages.length]!, '/block/max', '/tx/list?page=1&page_size=20'].map((path) => get(p.url, path)),
      );
      worst = Math.max(worst, (p.tracker.bestHead() ?? 0) - honest());
      benched = (await counter(p.url, 'chainproxy_upstream_sit_outs_total', { upstream: 'u2', reason: 'head' })) >= 1;
    }
    expect(worst).toBeLessThanOrEqual(0);
    expect(benched).toBe(true);
    await untilHead(p.tracker, (h) => (h ?? 0) >= honest() - 1, 'the honest head followed', 5000);
    expect(p.tracker.bestHead()).toBeLessThanOrEqual(honest());
  }, 30_000);
});
