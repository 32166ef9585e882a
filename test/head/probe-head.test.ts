/**
 * A probe answer that shows a new head is the cached block/max answer: a
 * client polling the head right after the proxy learned it gets that height
 * from the cache (no client miss, no refresh-ahead refetch of block/max),
 * whichever invalidation rule is on.
 */
import { describe, expect, it } from 'vitest';
import { fakeClock } from '../helpers/clock.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { pathOf, headRig } from './kit.js';
import { untilHead, within } from '../helpers/until.js';

const HEAD = '/block/max';

for (const mode of ['head', 'precise'] as const) {
  describe(`a probe's new head becomes the block/max entry (${mode} invalidation)`, () => {
    const rig = headRig({
      upstream: { probeIntervalMs: 100 },
      refreshAhead: { maxKeys: 12 },
      invalidation: {
        mode,
        maxAgeMs: 60_000,
        listMaxAgeMs: 60_000,
        maxAgeGrowth: 1,
        maxAgeByEndpoint: {},
        readTimeoutMs: 10_000,
        pendingPollMs: 0,
      },
      // Long enough that nothing expires during the test: only a new head changes the answer.
      policies: { 'block/max': { ttlMs: 60_000, finalTtlMs: 60_000, volatileTtlMs: 60_000 } },
    });

    it('clients get the new height from the cache at once, and block/max is asked only by probes', async () => {
      for (let i = 0; i < 3; i++) {
        const warm = await fetch(`${rig.proxy.url}${HEAD}`);
        expect(warm.status).toBe(200);
        // Nothing under way (the block reader's reads would teach the new head before a probe does).
        await within(rig.proxy.resolver.idle(), 'no flight under way', 5000);
        const from = rig.rec.log.length;
        const height = rig.sim.chain.advance(1);
        await untilHead(rig.proxy.tracker, (h) => h === height, `head ${height}`, 5000);
        const r = await fetch(`${rig.proxy.url}${HEAD}`);
        const body = (await r.json()) as { data: { height: number } };
        expect(body.data.height).toBe(height);
        expect(r.headers.get('x-cache')).toBe('HIT');
        // Refresh-ahead (and the block reader) started their flights on the head event: once they are done, who asked
        // block/max?
        await within(rig.proxy.resolver.idle(), 'no flight under way', 5000);
        const asked = rig.rec.log.slice(from).filter((e) => pathOf(e.url) === HEAD);
        expect(asked.filter((e) => e.purpose !== 'probe')).toEqual([]);
      }
    });
  });
}

describe('a probe showing the same head keeps the block/max entry fresh', () => {
  const clock = fakeClock();
  const rig = headRig({ upstream: { probeIntervalMs: 50 } }, clock.now);

  it('past its TTL, clients still hit it once a probe has shown the head again; nobody refetches it', async () => {
    const warm = await fetch(`${rig.proxy.url}${HEAD}`);
    expect(warm.headers.get('x-cache')).toBe('MISS');
    const from = rig.rec.log.length;
    // Well past the 1 s TTL and its stale windows.
    clock.advance(10_000);
    // A probe's answer is handled before the next probe of that upstream starts: two probes asked, one handled.
    await waitFor(
      () => rig.rec.log.slice(from).filter((e) => pathOf(e.url) === HEAD).length >= 2,
      5000,
      'a probe answered',
    );
    await within(rig.proxy.resolver.idle(), 'no flight under way', 5000);
    const r = await fetch(`${rig.proxy.url}${HEAD}`);
    expect(r.headers.get('x-cache')).toBe('HIT');
    expect(((await r.json()) as { data: { height: number } }).data.height).toBe(rig.sim.chain.head());
    expect(rig.rec.log.slice(from).filter((e) => pathOf(e.url) === HEAD && e.purpose !== 'probe')).toEqual([]);
  });
});
