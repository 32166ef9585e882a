/** A composed page with tag-kept parts is never fresher than its parts: recomposed on the next block. */
import { describe, expect, it } from 'vitest';
import { touchedAt } from '../../src/sim/index.js';
import { dataOf, get } from '../helpers/replica.js';
import { covered, preciseRig, SEED, truth } from './kit.js';

const rig = preciseRig();

describe('pages over tag-kept parts', () => {
  it('the address page shows what a block changed about the address', async () => {
    const { sim, proxy } = await rig.start();
    const h0 = sim.chain.head();
    await covered(proxy.url, h0);
    const address = [...touchedAt(SEED, h0 + 1).addresses][0]!;
    const page = `/pages/address?address=${address}`;
    expect((await get(proxy.url, page)).status).toBe(200);
    expect((await get(proxy.url, page)).cache).toBe('HIT');

    sim.chain.advance(1);
    await covered(proxy.url, h0 + 1);
    const r = await get(proxy.url, page);
    expect(r.cache).not.toBe('HIT');
    const info = dataOf(r.text)['info'];
    expect(JSON.stringify(info)).toBe(await truth(sim.url, `/address/info?address=${address}`));
  });
});
