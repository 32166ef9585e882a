/**
 * The safety bound of a tag-kept entry: answers the API can change without
 * naming the address (a balance moved by an internal transfer) are kept
 * INVALIDATION_MAX_AGE_MS at most; transaction lists, whose every change a
 * block or the pool names, INVALIDATION_LIST_MAX_AGE_MS; a per-endpoint
 * value overrides both. Downstream caches, which cannot see the blocks, are
 * told the endpoint's own TTL at most.
 */
import { describe, expect, it } from 'vitest';
import { get, maxAge } from '../helpers/replica.js';
import { covered, PRECISE, preciseRig } from './kit.js';

const rig = preciseRig();
const ADDRESS = 'n1d4wXxTVmK4rzyiN1vxhMuzxT441bxr8Fg';

describe('the safety max-age per endpoint', () => {
  it(
    'keeps a balance by INVALIDATION_MAX_AGE_MS, ' +
      'a transaction list by INVALIDATION_LIST_MAX_AGE_MS; tells clients the endpoint TTL',
    async () => {
      const { sim, proxy } = await rig.start({
        invalidation: {
          ...PRECISE,
          maxAgeMs: 60_000,
          listMaxAgeMs: 600_000,
          maxAgeGrowth: 1,
          maxAgeByEndpoint: { 'tx/nrc20': 120_000 },
        },
      });
      await covered(proxy, sim.chain.head());
      const kept = async (path: string): Promise<{ keptMs: number; clientS: number }> => {
        const r = await get(proxy.url, path);
        expect(r.status).toBe(200);
        const key = path.slice(1);
        const e = proxy.memory.peek(key)?.entry;
        if (e === undefined) throw new Error(`${key} not in memory`);
        return { keptMs: e.freshUntil - e.createdAt, clientS: maxAge(r.headers) };
      };
      const info = await kept(`/address/info?address=${ADDRESS}`);
      const list = await kept(`/tx/listByAddress?address=${ADDRESS}&page=1&page_size=20`);
      const nrc20 = await kept(`/tx/nrc20?address=${ADDRESS}&page=1&page_size=20`);
      expect([info.keptMs, list.keptMs, nrc20.keptMs]).toEqual([60_000, 600_000, 120_000]);
      // The endpoints' own TTLs (src/endpoints/*.ts policies), not the tag-kept bounds.
      for (const c of [info, list, nrc20]) {
        expect(c.clientS).toBeGreaterThan(0);
        expect(c.clientS).toBeLessThanOrEqual(10);
      }
    },
  );
});
