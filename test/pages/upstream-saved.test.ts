/**
 * `upstream_requests_saved_total` is counted once, by the resolver: direct
 * hits (Fastify route and fast path), batch items and page parts that hit
 * all count, each exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalAddress } from '../../src/sim/ids.js';
import { metric } from '../helpers/proxy-kit.js';
import { get, metaOf, startPagesEnv, type PagesEnv } from './kit.js';

let env: PagesEnv;
beforeAll(async () => {
  env = await startPagesEnv();
});
afterAll(async () => {
  await env.close();
});

const saved = (endpoint: string): Promise<number> => metric(env.base, 'upstream_requests_saved_total', { endpoint });

describe('upstream requests saved', () => {
  it('a direct miss saves nothing; each direct hit saves one (route and fast path)', async () => {
    expect((await get(env.base, '/tx/count/today')).header('x-cache')).toBe('MISS');
    expect(await saved('tx/count/today')).toBe(0);
    expect((await get(env.base, '/tx/count/today')).header('x-cache')).toBe('HIT');
    expect(await saved('tx/count/today')).toBe(1);
    expect((await get(env.base, '/tx/count/today')).header('x-cache')).toBe('HIT');
    expect(await saved('tx/count/today')).toBe(2);
  });

  it('a batch item that hits is counted', async () => {
    await get(env.base, '/chain/summary');
    const before = await saved('chain/summary');
    const g = await get(env.base, '/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ requests: ['chain/summary', 'chain/summary'] }),
    });
    const items = (g.json as { data: Array<{ cache: string }> }).data;
    expect(items.map((i) => i.cache)).toEqual(['HIT', 'HIT']);
    expect(await saved('chain/summary')).toBe(before + 2);
  });

  it('a page part that hits is counted', async () => {
    const addr = normalAddress(1, 7);
    await get(env.base, `/address/info?address=${addr}`);
    const before = await saved('address/info');
    const m = metaOf(await get(env.base, `/pages/address?address=${addr}`));
    expect(m.parts['info']!.cache).toBe('HIT');
    expect(await saved('address/info')).toBe(before + 1);
  });
});
