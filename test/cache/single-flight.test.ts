/**
 * Single flight: concurrent requests for one missing key make exactly one
 * upstream request. The upstream holds its answer on a deferred promise until
 * every client request has reached the proxy (counted on the proxy's own
 * server and through its join metric), so the test never sleeps.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  deferred,
  envelope,
  fixture,
  get,
  metric,
  routes,
  sendJson,
  startEnv,
  waitFor,
  type Deferred,
  type Env,
  type Got,
} from '../helpers/proxy-kit.js';
import { untilEmitted, within } from '../helpers/until.js';

const N = 200;
const PATH = 'tx/list';
const URL_ = '/tx/list?page=3';

describe('single flight', () => {
  let env: Env | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  /** Upstream holding /tx/list until `release` resolves with the status to answer. */
  async function setup(): Promise<{
    env: Env;
    requested: Deferred;
    release: Deferred<number>;
    reached: (n: number, what?: string) => Promise<void>;
  }> {
    const requested = deferred();
    const release = deferred<number>();
    const e = await startEnv({
      handler: routes({
        [PATH]: async (_req, res) => {
          requested.resolve();
          const status = await release.promise;
          if (status === 200) sendJson(res, 200, fixture(PATH).body);
          else sendJson(res, status, '{"code":500,"msg":"boom","data":null}');
        },
      }),
      // Retries and hedges are other features; here one attempt is one request, and it never
      // times out during a test (only a cancelled flight ends a held request early).
      patch: {
        upstream: { maxAttempts: 1, hedgeAfterMs: 0, attemptTimeoutMs: 30_000, totalDeadlineMs: 30_000 },
        limits: { requestTimeoutMs: 30_000 },
      },
    });
    env = e;
    let seen = 0;
    e.proxy.app.server.on('request', (req) => {
      if ((req.url ?? '').startsWith(`/${PATH}`)) seen++;
    });
    // Resolves once `n` requests for PATH have reached the proxy's server (on its request event).
    const reached = (n: number, what = `${n} requests at the proxy`): Promise<void> =>
      untilEmitted(e.proxy.app.server, 'request', () => seen === n, what);
    return { env: e, requested, release, reached };
  }

  it(`${N} concurrent cold requests make one upstream request and get the same 200 body`, async () => {
    const { env, requested, release, reached } = await setup();
    const all = Array.from({ length: N }, () => get(env.base, URL_));
    await requested.promise;
    await reached(N, `${N} requests at the proxy`);
    await waitFor(
      async () => (await metric(env.base, 'singleflight_joins_total', { endpoint: PATH })) === N - 1,
      10_000,
      `${N - 1} joins`,
    );
    expect(env.count(PATH)).toBe(1);
    release.resolve(200);
    const res: Got[] = await Promise.all(all);
    expect(res.every((r) => r.status === 200)).toBe(true);
    expect(new Set(res.map((r) => r.text)).size).toBe(1);
    expect(res[0]!.text).toContain('"next":"https://api.example.test/tx/list?page=2&page_size=2"');
    expect(res.every((r) => r.header('x-cache') === 'MISS')).toBe(true);
    expect(env.count(PATH)).toBe(1);
    const after = await get(env.base, URL_);
    expect(after.header('x-cache')).toBe('HIT');
    expect(env.count(PATH)).toBe(1);
  });

  it("a leader's failure reaches every follower as one error, not N retries", async () => {
    const { env, requested, release, reached } = await setup();
    const n = 50;
    const all = Array.from({ length: n }, () => get(env.base, URL_));
    await requested.promise;
    await reached(n, `${n} requests at the proxy`);
    await waitFor(
      async () => (await metric(env.base, 'singleflight_joins_total', { endpoint: PATH })) === n - 1,
      10_000,
      `${n - 1} joins`,
    );
    release.resolve(500);
    const res = await Promise.all(all);
    expect(res.every((r) => r.status === 502)).toBe(true);
    expect(new Set(res.map((r) => r.text)).size).toBe(1);
    const e = envelope(res[0]!);
    expect(e.code).toBeGreaterThanOrEqual(5021);
    expect(e.code).toBeLessThanOrEqual(5024);
    expect(res.every((r) => r.header('cache-control') === 'no-store')).toBe(true);
    expect(env.count(PATH)).toBe(1);
  });

  it('a follower disconnecting does not cancel the leader', async () => {
    const { env, requested, release, reached } = await setup();
    const leader = get(env.base, URL_);
    await requested.promise;
    const ac = new AbortController();
    const follower = get(env.base, URL_, { signal: ac.signal }).then(
      () => 'answered',
      () => 'aborted',
    );
    await reached(2);
    await waitFor(async () => (await metric(env.base, 'singleflight_joins_total', { endpoint: PATH })) === 1);
    ac.abort();
    expect(await follower).toBe('aborted');
    release.resolve(200);
    const l = await leader;
    expect(l.status).toBe(200);
    expect(env.count(PATH)).toBe(1);
    expect((await get(env.base, URL_)).header('x-cache')).toBe('HIT');
    expect(env.count(PATH)).toBe(1);
  });

  it(
    "the leader's own client disconnecting cancels nothing: " + 'followers are answered and the entry is stored',
    async () => {
      const { env, requested, release, reached } = await setup();
      const ac = new AbortController();
      const leader = get(env.base, URL_, { signal: ac.signal }).then(
        () => 'answered',
        () => 'aborted',
      );
      await requested.promise;
      const follower = get(env.base, URL_);
      await reached(2);
      await waitFor(async () => (await metric(env.base, 'singleflight_joins_total', { endpoint: PATH })) === 1);
      ac.abort();
      expect(await leader).toBe('aborted');
      release.resolve(200);
      const f = await follower;
      expect(f.status).toBe(200);
      expect(env.count(PATH)).toBe(1);
      expect((await get(env.base, URL_)).header('x-cache')).toBe('HIT');
      expect(env.count(PATH)).toBe(1);
    },
  );

  it('every client gone before the answer: the flight is cancelled, the next request fetches afresh', async () => {
    const { env, requested, release, reached } = await setup();
    const acs = Array.from({ length: 5 }, () => new AbortController());
    const all = acs.map((ac) => get(env.base, URL_, { signal: ac.signal }).catch(() => null));
    await requested.promise;
    await reached(5);
    for (const ac of acs) ac.abort();
    await Promise.all(all);
    await within(env.proxy.resolver.idle(), 'flight cancelled', 5000);
    release.resolve(200);
    const g = await get(env.base, URL_);
    expect(g.status).toBe(200);
    expect(g.header('x-cache')).toBe('MISS');
    expect(env.count(PATH)).toBe(2);
  });
});
