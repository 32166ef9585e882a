/**
 * Errors do not attract traffic: an upstream answering 401/403/429/5xx fast
 * fails over to the healthy one and its breaker opens; an upstream answering
 * "not found" to everything is contradicted by another upstream, so clients get
 * the data and that upstream's breaker opens too. A not-found both agree on is
 * believed, briefly. Latency statistics come from good answers only.
 */
import { describe, expect, it } from 'vitest';
import { sendJson } from '../helpers/fake-upstream.js';
import { get, limited, maxAge, startReplica, upstreamStatus } from '../helpers/replica.js';
import { startChainFake, perTest, type ChainFake } from '../helpers/chain-fake.js';
import { Upstream } from '../../src/upstream/upstream.js';
import { noopMetrics } from '../../src/metrics/types.js';
import { upstreamConfig } from '../helpers/upstream-kit.js';

const HEAD = 4_842_503;
const HASH = (i: number) => i.toString(16).padStart(64, 'a');

const t = perTest();

/** u0 answers every tx/detail fast with `status` and `body`; u1 (slower) has the data. */
async function pair(status: number, body: string): Promise<[ChainFake, ChainFake]> {
  const [bad, ok] = await Promise.all([startChainFake(HEAD), startChainFake(HEAD)]);
  t.fakes.push(bad, ok);
  bad.on('tx/detail', (_req, res) => sendJson(res, status, body));
  ok.delay(20);
  t.proxy = await startReplica([bad.url, ok.url], {
    upstream: { hedgeAfterMs: 0, breakerFailures: 5, breakerCooldownMs: 60_000 },
  });
  return [bad, ok];
}

describe('fast errors from one upstream', () => {
  it.each([
    [401, '{"code":401,"msg":"unauthorized","data":null}'],
    [403, '{"code":403,"msg":"forbidden","data":null}'],
    [429, '{"code":429,"msg":"slow down","data":null}'],
    [503, '{"code":503,"msg":"unavailable","data":null}'],
    [404, '{"code":404,"msg":"not found","data":null}'],
    [200, '{"code":404,"msg":"not found","data":null}'],
  ])('HTTP %i %s: 60/60 distinct requests answered 200, the breaker opens', async (status, body) => {
    const [bad, ok] = await pair(status, body);
    const results = await limited(60, 4, (i) => get(t.proxy!.url, `/tx/detail?hash=${HASH(i)}`));
    expect(results.map((r) => r.status)).toEqual(new Array(60).fill(200));
    const row = (await upstreamStatus(t.proxy!.url))[0]!;
    expect(row.breaker).toBe('open');
    // Once open, the bad upstream gets no more traffic.
    expect(bad.count('/tx/detail')).toBeLessThan(20);
    expect(ok.count('/tx/detail')).toBe(60);
  });

  it('errors and negative answers are no latency samples; good answers are', async () => {
    const fake = await startChainFake(HEAD);
    t.fakes.push(fake);
    fake.on('tx/detail', (_req, res) => sendJson(res, 404, '{"code":404,"msg":"not found","data":null}'));
    fake.on('tx/list', (_req, res) => sendJson(res, 401, '{"code":401,"msg":"unauthorized","data":null}'));
    const u = new Upstream({
      name: 'u0',
      url: fake.url,
      config: upstreamConfig({ breakerFailures: 100 }),
      metrics: noopMetrics,
    });
    try {
      for (let i = 0; i < 5; i++)
        await u.run({ path: `/tx/detail?hash=${HASH(i)}`, endpoint: 'tx/detail', attempt: 1, gated: true });
      for (let i = 0; i < 5; i++)
        await expect(u.run({ path: '/tx/list', endpoint: 'tx/list', attempt: 1, gated: true })).rejects.toMatchObject({
          kind: 'UPSTREAM_ERROR',
        });
      expect(u.latency.samples).toBe(0);
      expect(u.latency.ewma).toBeNull();
      await u.run({ path: '/block/max', endpoint: 'block/max', attempt: 1, gated: true });
      expect(u.latency.samples).toBe(1);
    } finally {
      await u.close();
    }
  });
});

describe('not found', () => {
  it('is believed when a second healthy upstream agrees, for the short negative TTL only', async () => {
    const [a, b] = await Promise.all([startChainFake(HEAD), startChainFake(HEAD)]);
    t.fakes.push(a, b);
    const notFound = '{"code":404,"msg":"not found","data":null}';
    a.on('tx/detail', (_req, res) => sendJson(res, 404, notFound));
    b.on('tx/detail', (_req, res) => sendJson(res, 404, notFound));
    t.proxy = await startReplica([a.url, b.url], { upstream: { hedgeAfterMs: 0 } });
    const r = await get(t.proxy.url, `/tx/detail?hash=${HASH(1)}`);
    expect(r.status).toBe(404);
    expect(JSON.parse(r.text)).toMatchObject({ code: 404, data: null });
    expect(maxAge(r.headers)).toBeLessThanOrEqual(1);
    expect(a.count('/tx/detail') + b.count('/tx/detail')).toBe(2); // asked, then confirmed
    expect(t.proxy.pool.status().map((u) => u.breaker)).toEqual(['closed', 'closed']);
  });

  it('with one upstream, its not-found stands (nobody to confirm with)', async () => {
    const a = await startChainFake(HEAD);
    t.fakes.push(a);
    a.on('tx/detail', (_req, res) => sendJson(res, 404, '{"code":404,"msg":"not found","data":null}'));
    t.proxy = await startReplica([a.url]);
    const r = await get(t.proxy.url, `/tx/detail?hash=${HASH(2)}`);
    expect(r.status).toBe(404);
    expect(a.count('/tx/detail')).toBe(1);
  });
});
