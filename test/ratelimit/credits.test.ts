/**
 * API keys pay credits: every request its price (CREDITS_HIT_COST or its
 * endpoint's / page's in creditCosts), every upstream request it leads the
 * miss price on top (a page's parts at the page's miss price, a batch's items
 * each); every keyed answer says X-Credits-Remaining, on the routed path, the
 * pre-router hit path and refusals alike; metrics per key name, never the key.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { counter } from '../helpers/replica.js';
import type { LimitedReplica } from './kit.js';
import { get as getFull } from '../helpers/proxy-kit.js';
import { budgetReplica, client, codeOf, cold, get, type Clock } from './budget-kit.js';

const KEY = 'explorer-secret-0123456789';

describe('API key credits', () => {
  let up: FakeUpstream;
  let r: LimitedReplica | undefined;
  let clock: Clock;

  beforeEach(async () => {
    up = await startFakeUpstream();
    ({ r, clock } = await budgetReplica(up.url, {
      apiKeys: [{ name: 'explorer', key: KEY, max: 100 }],
      credits: { hitCost: 1, missCost: 5 },
      creditCosts: { holders: { miss: 10 }, 'tx/list': { hit: 2 }, 'pages/home': { hit: 3, miss: 2 } },
    }));
  });
  afterEach(async () => {
    await r?.close();
    r = undefined;
    await up.close();
  });

  it('charges hits and misses at their prices and announces the credits left on every answer', async () => {
    const k = client('203.0.113.1', KEY);
    const left = (g: { headers: Record<string, string> }) => Number(g.headers['x-credits-remaining']);
    const first = await get(r!.url, cold(1), k);
    expect([first.status, first.cache, left(first)]).toEqual([200, 'MISS', 89]); // 1 + 10
    expect(left(await get(r!.url, cold(1), k))).toBe(88); // a routed hit
    // Without X-Forwarded-For (the key is the client wherever it comes from): answered before the router.
    const fast = await get(r!.url, cold(1), { 'x-api-key': KEY });
    expect([fast.cache, left(fast)]).toEqual(['HIT', 87]);
    expect(r!.fast!.size).toBe(1);
    expect(left(await get(r!.url, '/tx/list?page=1&page_size=2', k))).toBe(80); // 2 + 5

    const page = await getFull(r!.url, '/pages/home', { headers: k });
    expect(page.status).toBe(200);
    const parts = Object.values((page.json as { meta: { parts: Record<string, { cache?: string }> } }).meta.parts);
    const led = parts.filter((p) => p.cache === 'MISS').length;
    expect(led).toBeGreaterThan(0);
    expect(Number(page.header('x-credits-remaining'))).toBe(80 - 3 - 2 * led);
    let credits = 80 - 3 - 2 * led;

    // A batch: one credit per item, then ten per holders miss.
    const items = [2, 3, 4].map((n) => cold(n).slice(1));
    const batch = await getFull(r!.url, '/batch', {
      method: 'POST',
      headers: { ...k, 'content-type': 'application/json' },
      body: JSON.stringify({ requests: items }),
    });
    credits -= 3 + 3 * 10;
    expect(Number(batch.header('x-credits-remaining'))).toBe(credits);

    // Spend down to less than a miss costs: the miss is refused, hits go on.
    let misses = 2 + led + 3;
    while (credits >= 12) {
      credits -= 11;
      misses++;
      expect(left(await get(r!.url, cold(100 + credits), k))).toBe(credits);
    }
    const refused = await get(r!.url, cold(99), k);
    credits -= 1;
    expect([refused.status, codeOf(refused), left(refused)]).toEqual([429, 4292, credits]);
    // 100 credits per 60 s: 0.6 s per credit, 10 - credits missing.
    expect(refused.headers['retry-after']).toBe(String(Math.ceil(((10 - credits) * 600) / 1000)));
    expect(left(await get(r!.url, cold(1), k))).toBe(credits - 1);
    credits -= 1;
    while (credits > 0) {
      credits -= 1;
      await get(r!.url, cold(1), k);
    }
    const out = await get(r!.url, cold(1), k);
    expect([out.status, codeOf(out), left(out)]).toEqual([429, 4290, 0]);
    clock.advance(60_000);
    expect(left(await get(r!.url, cold(1), k))).toBe(99);

    // Anonymous answers say nothing about credits.
    expect((await get(r!.url, cold(1), client('203.0.113.2'))).headers['x-credits-remaining']).toBeUndefined();

    const metrics = (await get(r!.url, '/metrics')).text;
    expect(metrics).not.toContain(KEY);
    expect(await counter(r!.url, 'chainproxy_api_key_credits_total', { key: 'explorer' })).toBe(100 + 1);
    expect(await counter(r!.url, 'chainproxy_miss_budget_refused_total', { client: 'explorer' })).toBe(1);
    expect(await counter(r!.url, 'chainproxy_miss_budget_charged_total', { client: 'explorer' })).toBe(misses);
    expect(await counter(r!.url, 'chainproxy_miss_budget_charged_total', { client: 'anonymous' })).toBe(0);
  });
});
