/**
 * Golden passthrough: every fixture of datacenter-examples.json, served by a
 * fake upstream, comes back through the proxy with the same JSON text but for
 * next/previous, which point at PUBLIC_BASE_URL (same path, same query).
 * Raw text is compared, so `4842503.0` (block/max) and float ranks survive.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINT_NAMES } from '../../src/endpoints/index.js';
import {
  envelope,
  expectedBody,
  FIXTURES,
  get,
  PUBLIC,
  settableClock,
  startEnv,
  withoutStamps,
  type Env,
} from '../helpers/proxy-kit.js';

describe('golden passthrough of the fixtures (one per endpoint) (frozen clock)', () => {
  const clock = settableClock();
  let env: Env;
  beforeAll(async () => {
    env = await startEnv({ clock: clock.now });
  });
  afterAll(async () => {
    await env.close();
  });

  it('has one fixture per endpoint', () => {
    expect(FIXTURES.map((f) => f.path).sort()).toEqual([...ENDPOINT_NAMES].sort());
  });

  it.each(FIXTURES.map((f) => [f.path + (f.query ? `?${f.query}` : ''), f] as const))(
    '%s: MISS is byte-identical but for the links',
    async (url, f) => {
      const before = env.count(f.path);
      const g = await get(env.base, `/${url}`);
      expect(g.status).toBe(200);
      expect(g.header('x-cache')).toBe('MISS');
      expect(g.header('content-type')).toMatch(/^application\/json/);
      expect(g.header('content-encoding')).toBeUndefined();
      expect(g.text).toBe(expectedBody(f.body));
      // block/max is also requested by the prober; for the others exactly one more upstream request.
      expect(env.count(f.path)).toBe(before + 1);
    },
  );

  it.each(FIXTURES.map((f) => [f.path + (f.query ? `?${f.query}` : ''), f] as const))(
    '%s: HIT equals the MISS but for time-relative fields',
    async (url, f) => {
      const before = env.count(f.path);
      const g = await get(env.base, `/${url}`);
      expect(g.status).toBe(200);
      expect(g.header('x-cache')).toBe('HIT');
      expect(withoutStamps(g.text)).toBe(withoutStamps(expectedBody(f.body)));
      expect(env.count(f.path)).toBe(before);
    },
  );

  it('keeps number spellings: block/max 4842503.0 and holders rank', async () => {
    const max = await get(env.base, '/block/max');
    expect(max.text).toContain('"height":4842503.0');
    const holders = FIXTURES.find((f) => f.path === 'holders')!;
    const ranks = holders.body.match(/"rank":[^,}]+/g) ?? [];
    expect(ranks.length).toBeGreaterThan(0);
    const g = await get(env.base, `/holders?${holders.query}`);
    for (const r of ranks) expect(g.text).toContain(r);
  });

  it('rewrites links to PUBLIC_BASE_URL with the same path and query', async () => {
    const f = FIXTURES.find((x) => x.path === 'tx/listByAddress')!;
    const g = await get(env.base, `/${f.path}?${f.query}`);
    const data = (envelope(g).data ?? {}) as { next: string | null; previous: string | null };
    expect(data.next).toBe(`${PUBLIC}/tx/listByAddress?address=n1Gfg8uqtFsvGKZn6XtVmEb116ZtagRHDoe&page=2&page_size=2`);
    expect(data.previous).toBeNull();
    expect(g.text).not.toContain('data.nebulas.io');
  });

  it('re-stamps time-relative fields on hits to the current time (≤ 1 s granularity)', async () => {
    clock.advance(2_300); // within the 3 s TTL of tx/list and tx/nrc20
    const now = clock.now();
    const txl = FIXTURES.find((x) => x.path === 'tx/list')!;
    const a = await get(env.base, `/${txl.path}?${txl.query}`);
    expect(a.header('x-cache')).toBe('HIT');
    const ts = (envelope(a).data as { server_timestamp: number }).server_timestamp;
    expect(Math.abs(ts - now)).toBeLessThanOrEqual(1000);

    const f = FIXTURES.find((x) => x.path === 'tx/nrc20')!;
    const g = await get(env.base, `/${f.path}?${f.query}`);
    expect(g.header('x-cache')).toBe('HIT');
    const list = (
      envelope(g).data as { txnList: Array<{ timestamp: number; currentTimestamp: number; timeDiff: number }> }
    ).txnList;
    expect(list.length).toBeGreaterThan(0);
    for (const t of list) {
      expect(Math.abs(t.currentTimestamp - now)).toBeLessThanOrEqual(1000);
      expect(Math.abs(t.timeDiff - (t.currentTimestamp - t.timestamp))).toBeLessThanOrEqual(1000);
    }
    // The validator does not change with re-stamping.
    const again = await get(env.base, `/${f.path}?${f.query}`);
    expect(again.header('etag')).toBe(g.header('etag'));
  });
});

/**
 * The same MISS comparison on the real clock, as in production: the answer is
 * delivered a few milliseconds after the upstream's, and must still be the
 * upstream's bytes (no re-stamping of server_timestamp/currentTimestamp/timeDiff on a MISS).
 */
describe('golden passthrough of the fixtures (one per endpoint) (real clock)', () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env.close();
  });

  it.each(FIXTURES.map((f) => [f.path + (f.query ? `?${f.query}` : ''), f] as const))(
    '%s: MISS is byte-identical but for the links',
    async (url, f) => {
      const g = await get(env.base, `/${url}`);
      expect(g.status).toBe(200);
      expect(g.header('x-cache')).toBe('MISS');
      expect(g.text).toBe(expectedBody(f.body));
    },
  );
});
