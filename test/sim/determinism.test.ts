import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalAddress, type SimulatorHandle } from '../../src/sim/index.js';
import { get, sim } from './util.js';

let a: SimulatorHandle;
let b: SimulatorHandle;
let c: SimulatorHandle;
beforeAll(async () => {
  a = await sim({ seed: 7, advertisedUrl: 'http://x' });
  b = await sim({ seed: 7, advertisedUrl: 'http://x', now: () => 1_700_000_000_000 });
  c = await sim({ seed: 8, advertisedUrl: 'http://x' });
});
afterAll(async () => {
  await Promise.all([a.close(), b.close(), c.close()]);
});

const stripTime = (t: string): string => t.replace(/"(server_timestamp|currentTimestamp|timeDiff)":\d+/g, '"$1":0');

const paths = (seed: number): string[] => [
  '/tx/list?page=3&page_size=30',
  '/tx/list/pending',
  '/block/list',
  '/block/detail?h=4000000',
  '/block/max',
  '/contracts',
  '/holders',
  '/nax/summary',
  '/chain/summary',
  '/tx/count/history',
  '/address/count/history',
  '/token/tx/list?token=ATP',
  '/tx/listByAddress?address=' + normalAddress(seed, 2),
  '/tx/nrc20?address=' + normalAddress(seed, 20),
  '/nax/profits?address=' + normalAddress(seed, 20),
  '/address/info?address=' + normalAddress(seed, 20),
];

describe('determinism', () => {
  it('same seed and head ⇒ same bytes except time fields', async () => {
    for (const p of paths(7)) {
      const [x, y] = await Promise.all([get(a.url, p), get(b.url, p)]);
      expect(stripTime(x.text), p).toBe(stripTime(y.text));
    }
  });

  it('stays identical after both advance to the same head', async () => {
    a.chain.advance(33);
    b.chain.advance(33);
    for (const p of paths(7)) expect(stripTime((await get(a.url, p)).text)).toBe(stripTime((await get(b.url, p)).text));
  });

  it('a different seed gives a different chain', async () => {
    const [x, y] = await Promise.all([get(a.url, '/block/list'), get(c.url, '/block/list')]);
    expect(x.text).not.toBe(y.text);
  });

  it('hashes of one seed are not found on another', async () => {
    const l = JSON.parse((await get(a.url, '/tx/list?page_size=1')).text) as { data: { list: { tx_hash: string }[] } };
    expect((await get(c.url, '/tx/detail?hash=' + l.data.list[0]!.tx_hash)).status).toBe(404);
  });
});
