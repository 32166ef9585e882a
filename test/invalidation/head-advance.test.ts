/**
 * Head-driven invalidation. With a 10-minute tx/list TTL, a head
 * advance on the upstreams still makes tx/list page 1 fresh (new content,
 * X-Cache MISS, new X-Chain-Head) within one probe interval, while the detail
 * of a final block stays a HIT.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/fake-upstream.js';
import { dataOf, get, unstamped, type Got, simulatorTrio } from '../helpers/replica.js';

const trio = simulatorTrio();

const PROBE_MS = 100;
const LIST = '/tx/list?page=1&page_size=20';

describe('head advance through the proxy', () => {
  it('refreshes tx/list page 1 within one probe interval; a final block stays cached', async () => {
    const { sims, proxy } = await trio.start({
      upstream: { probeIntervalMs: PROBE_MS },
      policies: { 'tx/list': { ttlMs: 600_000, swrMs: 600_000 } },
    });
    const head0 = sims[0]!.chain.head();
    const finalBlock = `/block/detail?h=${head0 - 100}`;

    const list1 = await get(proxy.url, LIST);
    expect(list1).toMatchObject({ status: 200, cache: 'MISS', head: head0 });
    const again = await get(proxy.url, LIST);
    expect(again.cache).toBe('HIT');
    expect(unstamped(again.text)).toBe(unstamped(list1.text));
    // the long TTL applies
    expect(Number(/max-age=(\d+)/.exec(list1.headers['cache-control']!)?.[1])).toBeGreaterThan(500);
    const block1 = await get(proxy.url, finalBlock);
    expect(block1).toMatchObject({ status: 200, cache: 'MISS' });
    expect(await get(proxy.url, finalBlock)).toMatchObject({ cache: 'HIT' });

    for (const s of sims) s.chain.advance(1);
    const advancedAt = performance.now();
    let fresh: Got | undefined;
    await waitFor(
      async () => {
        const r = await get(proxy!.url, LIST);
        if (r.cache === 'HIT') {
          expect(unstamped(r.text)).toBe(unstamped(list1.text)); // the old page, until the head is known
          return false;
        }
        fresh = r;
        return true;
      },
      5000,
      'tx/list page 1 refetched after the head advance',
    );
    const elapsed = performance.now() - advancedAt;
    // One probe interval (plus the probe round itself and scheduling slack on a busy machine).
    expect(elapsed, `refreshed after ${Math.round(elapsed)} ms`).toBeLessThan(PROBE_MS + 250);
    expect(fresh).toMatchObject({ status: 200, cache: 'MISS', head: head0 + 1 });
    expect(unstamped(fresh!.text)).not.toBe(unstamped(list1.text));
    expect(dataOf(fresh!.text)['list']).toEqual(
      expect.arrayContaining([expect.objectContaining({ block_height: head0 + 1 })]),
    );
    const after = await get(proxy.url, LIST);
    expect(after).toMatchObject({ cache: 'HIT', head: head0 + 1 });
    expect(unstamped(after.text)).toBe(unstamped(fresh!.text));

    const block2 = await get(proxy.url, finalBlock);
    expect(block2).toMatchObject({ status: 200, cache: 'HIT', head: head0 + 1 });
    expect(block2.headers['etag']).toBe(block1.headers['etag']);
    expect(sims.reduce((n, s) => n + (s.stats()['block/detail'] ?? 0), 0)).toBe(1);
  });
});
