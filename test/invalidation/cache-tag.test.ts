/** CACHE_TAG_HEADERS: Cache-Tag and Surrogate-Key list an answer's dependency tags, on misses and hits alike. */
import { describe, expect, it } from 'vitest';
import { get } from '../helpers/replica.js';
import { covered, preciseRig } from './kit.js';

const rig = preciseRig();
const ADDR = 'n1SxfZa7UnXEnc8yuXiKmMQ3UB9wajzrFLY';

describe('Cache-Tag headers', () => {
  it('lists the tags when enabled', async () => {
    const { sim, proxy } = await rig.start({ cacheTagHeaders: true });
    await covered(proxy, sim.chain.head());
    const p = `/address/info?address=${ADDR}`;
    for (const cache of ['MISS', 'HIT']) {
      const r = await get(proxy.url, p);
      expect(r.cache).toBe(cache);
      expect(r.headers['cache-tag']).toBe(`address:${ADDR}`);
      expect(r.headers['surrogate-key']).toBe(`address:${ADDR}`);
    }
    const list = await get(proxy.url, `/token/holders?token=NAX&page=1&page_size=5`);
    expect(list.headers['cache-tag']).toBe('token:NAX');
    const max = await get(proxy.url, '/block/max');
    expect(max.headers['cache-tag']).toBe('head');
    const block = await get(proxy.url, `/block/detail?h=${sim.chain.head() - 2}`);
    expect(block.headers['cache-tag']).toBe(`finality:${sim.chain.head() - 2}`);
    expect((await get(proxy.url, '/contracts')).headers['cache-tag']).toBe('contract:deployed');
    expect((await get(proxy.url, '/token/list')).headers['cache-tag']).toBe('contract:deployed');
    expect((await get(proxy.url, '/tx/list/pending')).headers['cache-tag']).toBe('pending');
    const stageEnd = (Math.floor(sim.chain.head() / 6000) + 1) * 6000;
    expect((await get(proxy.url, '/nax/summary')).headers['cache-tag']).toBe(`stage-end:${stageEnd}`);
  });

  it('sends none by default', async () => {
    const { proxy } = await rig.start();
    const r = await get(proxy.url, `/address/info?address=${ADDR}`);
    expect(r.status).toBe(200);
    expect(r.headers['cache-tag']).toBeUndefined();
    expect(r.headers['surrogate-key']).toBeUndefined();
  });
});
