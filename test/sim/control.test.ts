import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatorHandle } from '../../src/sim/index.js';
import { get, post, sim } from './util.js';

let s: SimulatorHandle;
beforeAll(async () => {
  s = await sim();
});
afterAll(() => s.close());

describe('control plane', () => {
  it('counts API requests per endpoint, not control-plane requests', async () => {
    await post(s.url, '/_sim/stats/reset', {});
    await get(s.url, '/tx/list');
    await get(s.url, '/tx/list?page=2');
    await get(s.url, '/block/max');
    await get(s.url, '/_sim/stats');
    const st = (await (await fetch(s.url + '/_sim/stats')).json()) as {
      requests: Record<string, number>;
      head: number;
    };
    expect(st.requests).toEqual({ 'tx/list': 2, 'block/max': 1, _total: 3 });
    expect(st.head).toBe(s.chain.head());
    expect(s.stats()).toEqual(st.requests);
  });

  it('control paths are not API paths and API paths have no control behaviour', async () => {
    expect((await get(s.url, '/_sim/nope')).status).toBe(404);
    expect((await get(s.url, '/_sim/tx/list')).status).toBe(404);
    const r = await fetch(s.url + '/tx/list', { method: 'POST' });
    expect(r.status).toBe(404);
  });

  it('advance validates n', async () => {
    expect((await post(s.url, '/_sim/advance', { n: -1 })).status).toBe(400);
    expect((await post(s.url, '/_sim/advance', { n: 'x' })).status).toBe(400);
    const h = s.chain.head();
    expect((await post(s.url, '/_sim/advance', { n: 2 })).json).toMatchObject({ head: h + 2 });
  });
});
