/**
 * Pages and batches pay per part or item that leads an upstream request: the
 * parts beyond the client's remaining budget are answered as failed parts
 * (code 4292 in meta, data null; a required one fails the page with the 429
 * envelope), such a page is not kept for other clients, and a batch's items
 * beyond it get the 4292 envelope while the others are answered.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { normalAddress } from '../../src/sim/ids.js';
import { metaOf, startPagesEnv, type PagesEnv } from '../pages/kit.js';
import { get } from '../helpers/proxy-kit.js';

let env: PagesEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const as = (ip: string) => ({ 'x-forwarded-for': ip });
const patch = (missBudget: number) => ({
  trustProxy: ['127.0.0.1'],
  missBudget,
  rateLimit: { enabled: true, max: 1000, windowMs: 60_000 },
});
const post = (base: string, ip: string, requests: string[]) =>
  get(base, '/batch', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...as(ip) },
    body: JSON.stringify({ requests }),
  });

describe('pages and batches charged per part and item', () => {
  it('answers the cold parts beyond the budget as failed parts, and keeps no such page', async () => {
    env = await startPagesEnv(patch(2));
    const path = `/pages/address?address=${normalAddress(1, 3)}`;
    const page = await get(env.base, path, { headers: as('203.0.113.1') });
    expect(page.status).toBe(200);
    const parts = metaOf(page).parts;
    // Parts start in declaration order: info and txs are paid for, nrc20 and profits are not.
    expect([parts['info']?.status, parts['txs']?.status]).toEqual(['ok', 'ok']);
    for (const name of ['nrc20', 'profits']) {
      expect(parts[name]?.status, name).toBe('error');
      expect(parts[name]?.error).toMatchObject({ code: 4292, http_status: 429 });
      expect((page.json as { data: Record<string, unknown> }).data[name], name).toBeNull();
    }
    expect(page.header('retry-after')).toBe('30');
    expect(metaOf(page).partial).toBe(true);
    expect(env.count('tx/nrc20') + env.count('nax/profits')).toBe(0);
    // Another client gets the whole page: two parts hit, two led on its own budget.
    const other = await get(env.base, path, { headers: as('203.0.113.2') });
    expect(Object.values(metaOf(other).parts).map((p) => p.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(metaOf(other).partial).toBeUndefined();
    expect(other.header('x-cache')).toBe('MISS');
    expect([
      env.count('address/info'),
      env.count('tx/listByAddress'),
      env.count('tx/nrc20'),
      env.count('nax/profits'),
    ]).toEqual([1, 1, 1, 1]);
    // The first client's page is now a hit: free.
    expect((await get(env.base, path, { headers: as('203.0.113.1') })).header('x-cache')).toBe('HIT');
  });

  it('fails the page with the 429 envelope when a required part cannot be paid for', async () => {
    env = await startPagesEnv(patch(1));
    const a = as('203.0.113.3');
    expect((await get(env.base, `/pages/address?address=${normalAddress(1, 4)}`, { headers: a })).status).toBe(200);
    const refused = await get(env.base, `/pages/address?address=${normalAddress(1, 5)}`, { headers: a });
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({
      code: 4292,
      msg: 'miss budget spent: only cached answers are served until it refills',
      data: null,
    });
    expect(refused.header('retry-after')).toBe('60');
    expect(env.count('address/info')).toBe(1);
  });

  it('answers batch items beyond the budget with the 4292 envelope, the others as usual', async () => {
    env = await startPagesEnv(patch(2));
    const h = env.sim.chain.head() - 30;
    const items = [`block/detail?h=${h}`, `block/detail?h=${h - 1}`, `block/detail?h=${h - 2}`, `block/detail?h=${h}`];
    const g = await post(env.base, '203.0.113.4', items);
    expect(g.status).toBe(200);
    const answers = (g.json as { data: Array<{ status: number; cache: string; body: { code: number } }> }).data;
    // Items 1 and 2 lead; item 4 joins item 1's flight (free); item 3 is beyond the budget.
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429, 200]);
    expect(answers[2]?.body.code).toBe(4292);
    expect(env.count('block/detail')).toBe(2);
    expect(g.header('retry-after')).toBe('30');
    // Cached items are still served to the spent client.
    const again = await post(env.base, '203.0.113.4', items.slice(0, 2));
    expect((again.json as { data: Array<{ cache: string }> }).data.map((a) => a.cache)).toEqual(['HIT', 'HIT']);
  });
});
