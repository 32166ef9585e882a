/**
 * Precise invalidation on real sockets, the simulator's touchedAt as the truth:
 * a block stales exactly the entries whose tags it names.
 */
import { describe, expect, it } from 'vitest';
import { blockNames, poolEntryNames, touchedAt } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { get } from '../helpers/replica.js';
import { content, covered, invalidationStatus, PRECISE, preciseRig, SEED, truth } from './kit.js';

const rig = preciseRig();

/** An address the chain uses that block `h` does not name. */
function untouched(h: number, near: readonly string[]): string {
  const named = touchedAt(SEED, h).addresses;
  const a = near.find((x) => !named.has(x));
  if (a === undefined) throw new Error('no untouched address');
  return a;
}

describe('precise invalidation', () => {
  it('a new block stales the answers about the addresses it names, and keeps the others fresh and true', async () => {
    const { sim, proxy } = await rig.start();
    const h0 = sim.chain.head();
    await covered(proxy, h0);
    const touched = [...touchedAt(SEED, h0 + 1).addresses][0]!;
    const kept = untouched(h0 + 1, [...touchedAt(SEED, h0).addresses, ...touchedAt(SEED, h0 - 1).addresses]);
    const paths = (a: string) => [`/address/info?address=${a}`, `/tx/listByAddress?address=${a}&page=1&page_size=20`];
    for (const p of [...paths(touched), ...paths(kept)]) {
      expect((await get(proxy.url, p)).cache).toBe('MISS');
      expect((await get(proxy.url, p)).cache).toBe('HIT');
    }

    sim.chain.advance(1);
    await covered(proxy, h0 + 1);
    for (const p of paths(touched)) {
      const r = await get(proxy.url, p);
      expect(r.cache, p).toBe('MISS');
      expect(content(r.text)).toBe(await truth(sim.url, p));
    }
    for (const p of paths(kept)) {
      const r = await get(proxy.url, p);
      expect(r.cache, p).toBe('HIT');
      expect(content(r.text), p).toBe(await truth(sim.url, p));
    }
    expect(await invalidationStatus(proxy.url)).toMatchObject({ mode: 'precise', fallbacks: 0 });
  });

  it('INVALIDATION_MODE=head drops every per-address answer on every block (the older rule), counted', async () => {
    const { sim, proxy } = await rig.start({
      invalidation: {
        mode: 'head',
        maxAgeMs: 60_000,
        listMaxAgeMs: 60_000,
        maxAgeGrowth: 1,
        maxAgeByEndpoint: {},
        readTimeoutMs: 10_000,
        pendingPollMs: 0,
      },
    });
    const h0 = sim.chain.head();
    const kept = untouched(h0 + 1, [...touchedAt(SEED, h0).addresses]);
    const p = `/address/info?address=${kept}`;
    await get(proxy.url, p);
    expect((await get(proxy.url, p)).cache).toBe('HIT');
    sim.chain.advance(1);
    await waitHead(proxy.url, h0 + 1);
    expect((await get(proxy.url, p)).cache).toBe('MISS');
    // The same balance fetched again, counted by what ended the entry: the head rule.
    expect(await invalidationStatus(proxy.url)).toEqual({
      mode: 'head',
      unchangedRefetches: { 'address/info': { head: 1 } },
    });
  });

  it(
    'over many blocks, no answer differs from the upstream ' + 'at the same head (pending pool polled between blocks)',
    async () => {
      const { sim, proxy } = await rig.start({ invalidation: { ...PRECISE, pendingPollMs: 20 } });
      const h0 = sim.chain.head();
      await covered(proxy, h0);
      const addresses = [
        ...new Set([h0 - 2, h0 - 1, h0, h0 + 1, h0 + 2, h0 + 3].flatMap((h) => [...touchedAt(SEED, h).addresses])),
      ].slice(0, 24);
      const paths = addresses.flatMap((a) => [
        `/address/info?address=${a}`,
        `/tx/listByAddress?address=${a}&page=1&page_size=10`,
      ]);
      let hits = 0;
      let stale = 0;
      for (let b = 1; b <= 5; b++) {
        sim.chain.advance(1);
        await covered(proxy, h0 + b);
        for (const p of paths) {
          const r = await get(proxy.url, p);
          if (r.cache === 'HIT') hits++;
          if (content(r.text) !== (await truth(sim.url, p))) stale++;
        }
      }
      expect(stale).toBe(0);
      expect(hits).toBeGreaterThan(paths.length); // most of them stayed fresh across blocks
    },
  );
});

async function waitHead(url: string, h: number): Promise<void> {
  const { waitFor } = await import('../helpers/fake-upstream.js');
  await waitFor(async () => (await get(url, '/block/max')).head === h, 5000, `head ${h}`);
}

describe('the pending pool', () => {
  it(
    'a transaction seen by the poll before the proxy learns ' + 'its block still invalidates the lists that show it',
    async () => {
      const { sim, proxy } = await rig.start({
        upstream: { probeIntervalMs: 60_000 },
        invalidation: { ...PRECISE, pendingPollMs: 20 },
      });
      const h0 = sim.chain.head();
      await covered(proxy, h0);
      const block = blockNames(SEED, h0 + 1);
      const viaPool = [...poolEntryNames(SEED, h0 + 1)].find((a) => !block.has(a))!;
      const p = `/tx/listByAddress?address=${viaPool}&page=1&page_size=10`;
      await get(proxy.url, p);
      expect((await get(proxy.url, p)).cache).toBe('HIT');
      const seen = Number((await invalidationStatus(proxy.url))['pendingSeen']);

      sim.chain.advance(1);
      // The poll sees the new pool entries while the proxy still believes h0 (no probe for a minute).
      await waitFor(async () => Number((await invalidationStatus(proxy.url))['pendingSeen']) > seen, 5000, 'the poll');
      await get(proxy.url, '/block/max'); // a head answer teaches the new head
      await covered(proxy, h0 + 1);
      const r = await get(proxy.url, p);
      expect(content(r.text)).toBe(await truth(sim.url, p));
    },
  );
});
