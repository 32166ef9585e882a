/**
 * Hot invalidated entries are fetched again as soon as the next block naming
 * them is read, so the client polling them hits the new data.
 */
import { describe, expect, it } from 'vitest';
import { touchedAt } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { counter, get } from '../helpers/replica.js';
import { content, covered, invalidationStatus, preciseRig, SEED, truth } from '../invalidation/kit.js';

const rig = preciseRig();

/** An address two blocks close together both name: [address, first block, second block]. */
function twice(h0: number): [string, number, number] {
  for (let h1 = h0 + 1; h1 < h0 + 40; h1++) {
    const next = touchedAt(SEED, h1 + 1).addresses;
    const a = [...touchedAt(SEED, h1).addresses].find((x) => next.has(x));
    if (a !== undefined) return [a, h1, h1 + 1];
  }
  throw new Error('no address named by two consecutive blocks');
}

describe('refresh-ahead of invalidated entries', () => {
  it('an entry asked for after each block naming it is refetched before the next ask', async () => {
    const { sim, proxy } = await rig.start({ refreshAhead: { maxKeys: 8 } });
    const h0 = sim.chain.head();
    await covered(proxy, h0);
    const [address, h1, h2] = twice(h0);
    const p = `/address/info?address=${address}`;
    sim.chain.advance(h1 - 1 - h0);
    await covered(proxy, h1 - 1);
    await get(proxy.url, p);
    expect((await get(proxy.url, p)).cache).toBe('HIT');

    sim.chain.advance(1);
    await covered(proxy, h1);
    expect((await get(proxy.url, p)).cache).toBe('MISS'); // invalidated, and now known to be asked for

    sim.chain.advance(h2 - h1);
    await covered(proxy, h2);
    await waitFor(
      async () => Number((await invalidationStatus(proxy.url))['refreshedAhead']) >= 1,
      5000,
      'refresh-ahead',
    );
    const r = await get(proxy.url, p);
    expect(r.cache).toBe('HIT');
    expect(content(r.text)).toBe(await truth(sim.url, p));
  });

  it(
    'a composed page invalidated by a block is left to its own recomposition: ' +
      'its parts are refreshed, the page key never',
    async () => {
      const { sim, proxy } = await rig.start({ refreshAhead: { maxKeys: 12 } });
      const h0 = sim.chain.head();
      await covered(proxy, h0);
      const [address, h1, h2] = twice(h0);
      const p = `/pages/address?address=${address}`;
      sim.chain.advance(h1 - 1 - h0);
      await covered(proxy, h1 - 1);
      await get(proxy.url, p);
      sim.chain.advance(1);
      await covered(proxy, h1);
      expect((await get(proxy.url, p)).cache).toBe('MISS'); // the page and its parts invalidated, and asked for
      sim.chain.advance(h2 - h1);
      await covered(proxy, h2);
      await waitFor(
        async () => Number((await invalidationStatus(proxy.url))['refreshedAhead']) >= 1,
        5000,
        'refresh-ahead of the parts',
      );
      expect(await counter(proxy.url, 'chainproxy_invalidation_refresh_ahead_total', { outcome: 'error' })).toBe(0);
    },
  );
});
