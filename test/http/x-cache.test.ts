/**
 * One X-Cache vocabulary: every kind of answer, on a real proxy in front of a
 * fake upstream, carries HIT, MISS, STALE, BYPASS or ERROR, and the answer is
 * counted (requests_total, page_requests_total) under that same word, once.
 * ERROR is every error envelope the proxy writes itself; an upstream's own
 * error envelope keeps the word of its lookup.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import {
  deferred,
  fixture,
  get,
  routes,
  sendJson,
  settableClock,
  startEnv,
  type Env,
  type Got,
} from '../helpers/proxy-kit.js';
import { within } from '../helpers/until.js';

const TOKEN = 'token/detail';
const FAIL = 'tx/count/today';

/** Counter samples of the families that count client answers, keyed by family and labels. */
async function counted(base: string): Promise<Map<string, number>> {
  const text = (await get(base, '/metrics')).text;
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^chainproxy_(requests_total|page_requests_total)(\{[^}]*\})\s+(\S+)/.exec(line);
    if (m !== null) out.set(`${m[1]}${m[2]}`, Number(m[3]));
  }
  return out;
}

/** The series that grew between two readings, each with how much. */
function grown(before: Map<string, number>, after: Map<string, number>): Array<{ series: string; by: number }> {
  const out: Array<{ series: string; by: number }> = [];
  for (const [series, v] of after)
    if (v !== (before.get(series) ?? 0)) out.push({ series, by: v - (before.get(series) ?? 0) });
  return out;
}

const cacheOf = (series: string): string | undefined => /cache="([A-Z]+)"/.exec(series)?.[1];

describe('X-Cache: one word per answer, the same in the metric label', () => {
  let env: Env;
  let legacy: FakeUpstream;
  const clock = settableClock();
  const mode = { token: 'ok' as 'ok' | '500', fail: 'ok' as 'ok' | '500' | 'hang' | 'hold' };
  const hold = deferred();

  beforeAll(async () => {
    const base = defaultConfig();
    legacy = await startFakeUpstream((_req, res) => {
      res.setHeader('x-cache', 'HIT from varnish');
      sendJson(res, 200, '{"legacy":true}');
    });
    env = await startEnv({
      clock: clock.now,
      handler: routes({
        [TOKEN]: (_req, res) =>
          mode.token === 'ok'
            ? sendJson(res, 200, fixture(TOKEN).body)
            : sendJson(res, 500, '{"code":500,"msg":"boom","data":null}'),
        [FAIL]: async (_req, res) => {
          if (mode.fail === 'hang') return new Promise<void>(() => {});
          if (mode.fail === 'hold') await hold.promise;
          if (mode.fail === '500') return sendJson(res, 500, '{"code":500,"msg":"boom","data":null}');
          return sendJson(res, 200, fixture(FAIL).body);
        },
        'tx/detail': (_req, res) => sendJson(res, 404, '{"code":404,"msg":"not found","data":null}'),
      }),
      patch: {
        upstream: {
          maxAttempts: 1,
          hedgeAfterMs: 0,
          attemptTimeoutMs: 300,
          totalDeadlineMs: 600,
          connections: 1,
          maxQueue: 0,
        },
        policies: {
          [TOKEN]: { ttlMs: 1000, finalTtlMs: 1000, volatileTtlMs: 1000, swrMs: 5000, sieMs: 60_000 },
          // An upstream's not-found is relayed and not stored: BYPASS.
          'tx/detail': { negativeTtlMs: 0 },
        },
        rateLimit: { enabled: true, max: 10_000 },
        apiKeys: [{ name: 'tiny', key: 'tiny-key-0123456789', max: 1 }],
        stream: { ...base.stream, maxPerClient: 1 },
        passthrough: {
          routes: [
            { prefix: '/legacy', target: 'http://127.0.0.1:1' },
            { prefix: '/old', target: legacy.url },
          ],
          timeoutMs: 1000,
          cache: {},
          ignoreParams: [],
          cacheMaxBodyBytes: 1024 * 1024,
        },
      },
    });
  });
  afterAll(async () => {
    hold.resolve();
    await env.close();
    await legacy.close();
  });

  /** One answer: its X-Cache, and the series its answer was counted in. */
  async function walk(
    path: string,
    o: Parameters<typeof get>[2] = {},
  ): Promise<{ got: Got; cache: string | undefined; series: Array<{ series: string; by: number }> }> {
    const before = await counted(env.base);
    const got = await get(env.base, path, o);
    const after = await counted(env.base);
    return { got, cache: got.header('x-cache'), series: grown(before, after) };
  }

  /** The answer says `word` and was counted once, under `word`, in `family` (with `endpoint` when given). */
  async function expectWord(
    path: string,
    status: number,
    word: string,
    where: string,
    o: Parameters<typeof get>[2] = {},
  ): Promise<Got> {
    const w = await walk(path, o);
    expect(w.got.status, `${path}: ${w.got.text.slice(0, 120)}`).toBe(status);
    expect(w.cache, path).toBe(word);
    expect(w.series, path).toHaveLength(1);
    expect(w.series[0]!.by, path).toBe(1);
    expect(cacheOf(w.series[0]!.series), path).toBe(word);
    expect(w.series[0]!.series, path).toContain(where);
    return w.got;
  }

  it('hit, miss, stale (revalidate and if-error), bypass: the cache path', async () => {
    await expectWord(`/${TOKEN}?token=NAX`, 200, 'MISS', 'endpoint="token/detail"');
    await expectWord(`/${TOKEN}?token=NAX`, 200, 'HIT', 'endpoint="token/detail"');
    clock.advance(2000);
    await expectWord(`/${TOKEN}?token=NAX`, 200, 'STALE', 'endpoint="token/detail"');
    // The background refresh stored a fresh copy.
    await within(env.proxy.resolver.idle(), 'the background refresh');
    expect((await get(env.base, `/${TOKEN}?token=NAX`)).header('x-cache')).toBe('HIT');
    clock.advance(10_000);
    mode.token = '500';
    await expectWord(`/${TOKEN}?token=NAX`, 200, 'STALE', 'endpoint="token/detail"');
    mode.token = 'ok';
    await expectWord(`/tx/detail?hash=${'a'.repeat(64)}`, 404, 'BYPASS', 'endpoint="tx/detail"');
  });

  it('400, 404, 405 and the upstream failures 502, 504, 503: ERROR, under their endpoint or other', async () => {
    await expectWord('/tx/list?page=x', 400, 'ERROR', 'endpoint="tx/list",cache="ERROR",status_class="4xx"');
    await expectWord('/no/such/path', 404, 'ERROR', 'endpoint="other",cache="ERROR",status_class="4xx"');
    await expectWord('/tx/list', 405, 'ERROR', 'endpoint="tx/list",cache="ERROR",status_class="4xx"', {
      method: 'DELETE',
    });
    mode.fail = '500';
    await expectWord(`/${FAIL}`, 502, 'ERROR', 'endpoint="tx/count/today",cache="ERROR",status_class="5xx"');
    mode.fail = 'hang';
    await expectWord(`/${FAIL}`, 504, 'ERROR', 'endpoint="tx/count/today",cache="ERROR",status_class="5xx"');
    // One connection, no queue: a request held upstream makes the next one shed.
    mode.fail = 'hold';
    const asked = env.count(FAIL);
    const held = get(env.base, `/${FAIL}`);
    await env.up.arrived(asked + 1, FAIL, 'the held request upstream');
    await expectWord('/contracts', 503, 'ERROR', 'endpoint="contracts",cache="ERROR",status_class="5xx"');
    hold.resolve();
    await held;
  });

  it('401 and 429 from the rate limiter: ERROR, under the endpoint asked', async () => {
    await expectWord('/block/max', 401, 'ERROR', 'endpoint="block/max",cache="ERROR",status_class="4xx"', {
      headers: { 'x-api-key': 'nobody-has-this-key' },
    });
    await get(env.base, '/block/max', { headers: { 'x-api-key': 'tiny-key-0123456789' } });
    await expectWord('/block/max', 429, 'ERROR', 'endpoint="block/max",cache="ERROR",status_class="4xx"', {
      headers: { 'x-api-key': 'tiny-key-0123456789' },
    });
  });

  it('pages: HIT, MISS and ERROR in page_requests_total', async () => {
    await expectWord('/pages/home', 200, 'MISS', 'page_requests_total{page="home"');
    await expectWord('/pages/home', 200, 'HIT', 'page_requests_total{page="home"');
    await expectWord('/pages/block?h=abc', 400, 'ERROR', 'page_requests_total{page="block"');
  });

  it('batch items: each item’s cache field is the word it is counted under; the batch answer says BYPASS', async () => {
    const before = await counted(env.base);
    const got = await get(env.base, '/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ requests: ['block/max', 'tx/list?page=x', 'no/such', 7] }),
    });
    const after = await counted(env.base);
    expect(got.status).toBe(200);
    expect(got.header('x-cache')).toBe('BYPASS');
    const items = (got.json as { data: Array<{ status: number; cache: string }> }).data;
    expect(items.map((i) => `${i.status}:${i.cache}`)).toEqual(['200:HIT', '400:ERROR', '404:ERROR', '400:ERROR']);
    const byWord = new Map<string, number>();
    for (const s of grown(before, after)) byWord.set(cacheOf(s.series)!, (byWord.get(cacheOf(s.series)!) ?? 0) + s.by);
    expect(Object.fromEntries(byWord)).toEqual({ HIT: 1, ERROR: 3 });
  });

  it(
    'a stream refusal: ERROR under other; a passthrough failure: ERROR; ' +
      'a stream, passthrough and the operator routes: BYPASS, not counted as API requests',
    async () => {
      const open = await request(`${env.base}/stream/heads`);
      expect(open.statusCode).toBe(200);
      expect(open.headers['x-cache']).toBe('BYPASS');
      try {
        await expectWord('/stream/heads', 429, 'ERROR', 'endpoint="other",cache="ERROR",status_class="4xx"');
      } finally {
        open.body.destroy();
      }
      // A passthrough failure is counted by its own family (chainproxy_passthrough_*), not as an API request.
      const failed = await walk('/legacy/anything');
      expect([failed.got.status, failed.cache]).toEqual([502, 'ERROR']);
      expect(failed.series).toEqual([]);
      // A backend's own X-Cache is not the proxy's word.
      for (const path of ['/old/page', '/healthz', '/readyz', '/status', '/openapi.json']) {
        const w = await walk(path);
        expect(w.got.status, path).toBe(200);
        expect(w.cache, path).toBe('BYPASS');
        expect(w.series, path).toEqual([]);
      }
      const preflight = await walk('/tx/list', {
        method: 'OPTIONS',
        headers: { origin: 'https://x.test', 'access-control-request-method': 'GET' },
      });
      expect(preflight.cache).toBe('BYPASS');
    },
  );
});
