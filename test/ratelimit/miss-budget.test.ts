/**
 * The per-client miss budget over HTTP: a request that leads an upstream
 * request costs one miss; once RATE_LIMIT_MISS_BUDGET is spent, requests
 * that would miss get 429 (code 4292) with Retry-After and cause no upstream
 * request, while hits are still served; joining a flight under way is free;
 * the client is the limiter's (TRUST_PROXY, IPv6 /64); the budget refills
 * over RATE_LIMIT_WINDOW_MS; metrics by client class.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { heldFixtures, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { counter } from '../helpers/replica.js';
import type { LimitedReplica } from './kit.js';
import { budgetReplica, client, cold, get, type Clock } from './budget-kit.js';

describe('per-client miss budget', () => {
  let up: FakeUpstream;
  let r: LimitedReplica | undefined;
  let clock: Clock;
  let held: ReturnType<typeof heldFixtures>;

  beforeEach(async () => {
    held = heldFixtures('/holders?page=99');
    up = await startFakeUpstream(held.handler);
  });
  afterEach(async () => {
    held.release();
    await r?.close();
    r = undefined;
    await up.close();
  });

  it('refuses misses past the budget with 429 4292 and Retry-After, serves hits, refills over the window', async () => {
    ({ r, clock } = await budgetReplica(up.url, { missBudget: 3 }));
    const a = client('203.0.113.1');
    for (let n = 1; n <= 3; n++)
      expect(await get(r.url, cold(n), a), `miss ${n}`).toMatchObject({ status: 200, cache: 'MISS' });
    const before = up.count('/holders');
    const refused = await get(r.url, cold(4), a);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.text)).toEqual({
      code: 4292,
      msg: 'miss budget spent: only cached answers are served until it refills',
      data: null,
    });
    expect(refused.headers['retry-after']).toBe('20'); // 3 per 60 s: one every 20 s
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(up.count('/holders')).toBe(before);
    // Hits cost no miss: routed, then answered before the router.
    for (let i = 0; i < 3; i++) expect(await get(r.url, cold(1), a)).toMatchObject({ status: 200, cache: 'HIT' });
    // Another client has its own budget.
    expect(await get(r.url, cold(4), client('203.0.113.2'))).toMatchObject({ status: 200, cache: 'MISS' });
    // Now a hit for the first client too.
    expect(await get(r.url, cold(4), a)).toMatchObject({ status: 200, cache: 'HIT' });
    clock.advance(19_000);
    expect((await get(r.url, cold(5), a)).headers['retry-after']).toBe('1');
    clock.advance(1000);
    expect(await get(r.url, cold(5), a)).toMatchObject({ status: 200, cache: 'MISS' });
    expect((await get(r.url, cold(6), a)).status).toBe(429);
    expect(await counter(r.url, 'chainproxy_miss_budget_charged_total', { client: 'anonymous' })).toBe(5);
    expect(await counter(r.url, 'chainproxy_miss_budget_refused_total', { client: 'anonymous' })).toBe(3);
    // The request budget is another matter: no 4290 here.
    expect(await counter(r.url, 'chainproxy_rate_limit_refused_total')).toBe(0);
  });

  it('charges an IPv6 /64 as one client and the allowlist never', async () => {
    ({ r } = await budgetReplica(up.url, { missBudget: 2, rateLimitAllow: ['198.51.100.9'] }));
    expect((await get(r.url, cold(1), client('2001:db8:1:2::1'))).status).toBe(200);
    expect((await get(r.url, cold(2), client('2001:db8:1:2:ffff::9'))).status).toBe(200);
    expect((await get(r.url, cold(3), client('2001:db8:1:2::77'))).status).toBe(429);
    expect((await get(r.url, cold(3), client('2001:db8:1:3::1'))).status).toBe(200);
    for (let n = 10; n < 15; n++) expect((await get(r.url, cold(n), client('198.51.100.9'))).status).toBe(200);
  });

  it('lets a client whose budget is spent join a flight another client leads, free', async () => {
    ({ r } = await budgetReplica(up.url, { missBudget: 1 }));
    const spent = client('203.0.113.5');
    expect((await get(r.url, cold(1), spent)).status).toBe(200);
    expect((await get(r.url, cold(2), spent)).status).toBe(429);
    const leader = get(r.url, cold(99), client('203.0.113.6'));
    await up.arrived(2, '/holders', 'the leader upstream request');
    const follower = get(r.url, cold(99), spent);
    // The follower is attached to the flight before the upstream answers.
    await waitFor(
      async () => (await counter(r!.url, 'chainproxy_singleflight_joins_total')) === 1,
      5000,
      'the follower joined',
    );
    held.release();
    const [l, f] = await Promise.all([leader, follower]);
    expect([l.status, f.status]).toEqual([200, 200]);
    expect(up.count('/holders')).toBe(2);
    expect(await counter(r.url, 'chainproxy_miss_budget_charged_total', { client: 'anonymous' })).toBe(2);
  });

  it('is off with RATE_LIMIT_MISS_BUDGET=0 (led requests still counted)', async () => {
    ({ r } = await budgetReplica(up.url, { missBudget: 0 }));
    for (let n = 1; n <= 8; n++) expect((await get(r.url, cold(n), client('203.0.113.7'))).status).toBe(200);
    expect(await counter(r.url, 'chainproxy_miss_budget_charged_total', { client: 'anonymous' })).toBe(8);
  });
});
