/**
 * A composed page with tag-kept parts is kept by their tags, like an entry:
 * recomposed after a block that names one of them, a hit across one that does not.
 */
import { describe, expect, it } from 'vitest';
import { touchedAt } from '../../src/sim/index.js';
import { dataOf, get } from '../helpers/replica.js';
import { covered, preciseRig, SEED, truth } from './kit.js';

const rig = preciseRig();

describe('pages over tag-kept parts', () => {
  it('the address page shows what a block changed about the address', async () => {
    const { sim, proxy } = await rig.start();
    const h0 = sim.chain.head();
    await covered(proxy, h0);
    const address = [...touchedAt(SEED, h0 + 1).addresses][0]!;
    const page = `/pages/address?address=${address}`;
    expect((await get(proxy.url, page)).status).toBe(200);
    expect((await get(proxy.url, page)).cache).toBe('HIT');

    sim.chain.advance(1);
    await covered(proxy, h0 + 1);
    const r = await get(proxy.url, page);
    expect(r.cache).not.toBe('HIT');
    const info = dataOf(r.text)['info'];
    expect(JSON.stringify(info)).toBe(await truth(sim.url, `/address/info?address=${address}`));
  });

  it('the address page stays a hit across a block that leaves the address alone', async () => {
    const { sim, proxy } = await rig.start();
    const h0 = sim.chain.head();
    await covered(proxy, h0);
    const next = touchedAt(SEED, h0 + 1).addresses;
    const address = [...touchedAt(SEED, h0).addresses].find((a) => !next.has(a))!;
    const page = `/pages/address?address=${address}`;
    const first = await get(proxy.url, page);
    expect(first.status).toBe(200);
    expect((await get(proxy.url, page)).cache).toBe('HIT');

    sim.chain.advance(1);
    await covered(proxy, h0 + 1);
    const r = await get(proxy.url, page);
    expect(r.cache).toBe('HIT');
    expect(r.headers['etag']).toBe(first.headers['etag']);
    expect(JSON.stringify(dataOf(r.text)['info'])).toBe(await truth(sim.url, `/address/info?address=${address}`));
  });
});
