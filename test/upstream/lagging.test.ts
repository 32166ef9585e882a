/**
 * One frozen (lagging) simulator among three. Once its lag passes
 * maxLagBlocks it serves no head-sensitive request, and block/max seen through
 * the proxy never goes backwards across 1000 requests while the chain moves.
 */
import { describe, expect, it } from 'vitest';
import type { SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { counter, dataOf, get, upstreamStatus, simulatorTrio } from '../helpers/replica.js';
import { untilHead } from '../helpers/until.js';

const trio = simulatorTrio();

const HEAD_SENSITIVE = [
  '/tx/list?page=1&page_size=20',
  '/tx/list/pending?page=1&page_size=20',
  '/block/list?page=1&page_size=20',
  '/chain/summary',
  '/tx/count/today',
];

/** Sim request counts without block/max (probes hit block/max; the proxy's own use of it is checked in the metrics). */
function apiCounts(sim: SimulatorHandle): Record<string, number> {
  const s = sim.stats();
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(s)) if (k !== 'block/max' && k !== '_total') out[k] = v;
  return out;
}

describe('three simulators, one frozen', () => {
  it('never routes head-sensitive requests to the lagging one; block/max monotonic over 1000 requests', async () => {
    const { sims, proxy } = await trio.start({
      upstream: { probeIntervalMs: 50, maxLagBlocks: 2 },
      // block/max refetched as soon as a probe sees a new head, so the 1000 requests really cross heads.
      policies: { 'block/max': { invalidateOnHead: true } },
    });
    const [fast0, fast1, frozen] = [sims[0]!, sims[1]!, sims[2]!];
    frozen.setFaults({ freeze: true });
    fast0.chain.advance(5);
    fast1.chain.advance(5);
    await waitFor(async () => (await upstreamStatus(proxy!.url))[2]!.lagging, 5000, 'u2 seen lagging');
    const row = (await upstreamStatus(proxy.url))[2]!;
    expect(row).toMatchObject({ name: 'u2', lagging: true, healthy: true });
    expect(row.lag).toBeGreaterThan(2);

    const frozenBefore = apiCounts(frozen);
    const u2MaxBefore = await counter(proxy.url, 'chainproxy_upstream_requests_total', {
      upstream: 'u2',
      endpoint: 'block/max',
    });

    const start = Number(dataOf((await get(proxy.url, '/block/max')).text)['height']);
    let served = start;
    let chainHead = 0;
    for (let i = 0; i < 1000; i++) {
      if (i % 40 === 0) {
        for (const s of sims) s.chain.advance(1); // the frozen one ignores it
        // Wait for a probe to see it: otherwise, on a fast machine, 40 requests finish within
        // one probe interval, several advances merge into one, and the run crosses fewer heads.
        const want = fast0.chain.head();
        await untilHead(proxy.tracker, (h) => h === want, `head ${want} seen`, 5000);
      }
      const r = await get(proxy.url, '/block/max');
      expect(r.status).toBe(200);
      const h = Number(dataOf(r.text)['height']);
      expect(h, `request ${i}`).toBeGreaterThanOrEqual(served);
      expect(r.head ?? 0, `X-Chain-Head at request ${i}`).toBeGreaterThanOrEqual(chainHead);
      served = h;
      chainHead = r.head ?? 0;
      if (i % 20 === 0) {
        const extra = await get(proxy.url, HEAD_SENSITIVE[(i / 20) % HEAD_SENSITIVE.length]!);
        expect(extra.status).toBe(200);
      }
    }
    // The heads moved during the run, and the proxy followed them.
    expect(served).toBeGreaterThan(start);
    expect(fast0.chain.head()).toBe(frozen.chain.head() + 5 + 25);

    // The lagging upstream served nothing head-sensitive after the lag was detected.
    expect(apiCounts(frozen)).toEqual(frozenBefore);
    expect(
      await counter(proxy.url, 'chainproxy_upstream_requests_total', { upstream: 'u2', endpoint: 'block/max' }),
    ).toBe(u2MaxBefore);
    // ...while the fresh ones did.
    expect((fast0.stats()['tx/list'] ?? 0) + (fast1.stats()['tx/list'] ?? 0)).toBeGreaterThan(0);
    // Every one of the 25 advances reached clients (a probe's answer becomes the cached block/max, no refetch needed).
    expect(served).toBe(fast0.chain.head());
  });
});
