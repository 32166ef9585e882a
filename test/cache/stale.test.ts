/**
 * Stale serving, with a fake clock and a short token/detail policy
 * (ttl 1 s, stale-while-revalidate 5 s, stale-if-error 60 s):
 * - within the SWR window: STALE at once, one background refresh, then HIT with the new content;
 * - past it, within stale-if-error: STALE with the old body when the upstream fails, times out or answers garbage;
 * - nothing stale to serve: a 502/504 envelope.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  deferred,
  envelope,
  fixture,
  get,
  routes,
  sendJson,
  startEnv,
  type Deferred,
  type Env,
  type Handler,
  settableClock,
} from '../helpers/proxy-kit.js';
import { within } from '../helpers/until.js';

const URL_ = '/token/detail?token=NAX';
const PATH = 'token/detail';

function body(version: number): string {
  return fixture(PATH).body.replace('"description":"NAX"', `"description":"NAX v${version}"`);
}

type Mode = 'ok' | 'hold' | '500' | 'html' | 'garbage' | 'truncated' | 'reset' | 'hang';

const failures: Record<Exclude<Mode, 'ok' | 'hold'>, Handler> = {
  '500': (_req, res) => sendJson(res, 500, '{"code":500,"msg":"internal error","data":null}'),
  html: (_req, res) => {
    res.statusCode = 502;
    res.setHeader('content-type', 'text/html');
    res.end('<html><body>Bad Gateway</body></html>');
  },
  garbage: (_req, res) => sendJson(res, 200, '{"code":0,"msg":"success","data":{"token_name":'),
  truncated: (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' });
    res.write(body(9).slice(0, 40));
    setImmediate(() => res.socket?.destroy());
  },
  reset: (req) => {
    req.socket.destroy();
  },
  hang: () => new Promise<void>(() => {}),
};

describe('stale serving', () => {
  let env: Env | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  /**
   * Upstream deadlines are not what these tests measure: generous (a loaded
   * machine answers slowly), but short where the test waits for them (a hang).
   */
  async function setup(failing?: Mode) {
    const hang = failing === 'hang';
    const clock = settableClock();
    const s = { mode: 'ok' as Mode, version: 1, hold: deferred() as Deferred, requested: deferred() as Deferred };
    const handler = routes({
      [PATH]: async (req, res) => {
        s.requested.resolve();
        if (s.mode === 'hold') await s.hold.promise;
        if (s.mode === 'ok' || s.mode === 'hold') return sendJson(res, 200, body(s.version));
        return failures[s.mode](req, res);
      },
    });
    env = await startEnv({
      handler,
      clock: clock.now,
      patch: {
        upstream: {
          maxAttempts: 1,
          hedgeAfterMs: 0,
          attemptTimeoutMs: hang ? 1000 : 10_000,
          totalDeadlineMs: hang ? 1500 : 20_000,
        },
        policies: { [PATH]: { ttlMs: 1000, finalTtlMs: 1000, volatileTtlMs: 1000, swrMs: 5000, sieMs: 60_000 } },
      },
    });
    return { clock, s, env };
  }

  it('stale-while-revalidate: STALE at once, one background refresh, then HIT with the new content', async () => {
    const { clock, s, env } = await setup();
    const first = await get(env.base, URL_);
    expect(first.header('x-cache')).toBe('MISS');
    expect(first.text).toBe(body(1));
    expect(env.count(PATH)).toBe(1);

    s.version = 2;
    s.mode = 'hold';
    s.requested = deferred();
    clock.advance(2_000);
    const stale = await get(env.base, URL_); // answered while the refresh is held upstream
    expect(stale.status).toBe(200);
    expect(stale.header('x-cache')).toBe('STALE');
    expect(stale.text).toBe(body(1));
    expect(stale.header('cache-control')).toBe('public, max-age=0');
    expect(Number(stale.header('age'))).toBe(2);
    await s.requested.promise;
    // More requests during the refresh: all STALE, no further upstream request.
    const more = await Promise.all(Array.from({ length: 5 }, () => get(env.base, URL_)));
    expect(more.map((m) => m.header('x-cache'))).toEqual(Array(5).fill('STALE'));
    expect(more.every((m) => m.text === body(1))).toBe(true);
    expect(env.count(PATH)).toBe(2);

    s.hold.resolve();
    await within(env.proxy.resolver.idle(), 'background refresh', 5000);
    const fresh = await get(env.base, URL_);
    expect(fresh.header('x-cache')).toBe('HIT');
    expect(fresh.text).toBe(body(2));
    expect(env.count(PATH)).toBe(2);
  });

  it('a failed background refresh keeps the old entry servable', async () => {
    const { clock, s, env } = await setup();
    await get(env.base, URL_);
    s.mode = '500';
    clock.advance(2_000);
    const a = await get(env.base, URL_);
    expect(a.header('x-cache')).toBe('STALE');
    await env.up.arrived(2, PATH, 'the background refresh');
    await within(env.proxy.resolver.idle(), 'the refresh settled');
    expect(env.count(PATH)).toBe(2);
    const b = await get(env.base, URL_);
    expect(b.status).toBe(200);
    expect(b.header('x-cache')).toBe('STALE');
    expect(b.text).toBe(body(1));
  });

  it.each(Object.keys(failures) as Array<keyof typeof failures>)(
    'stale-if-error: upstream %s → STALE with the old body',
    async (mode) => {
      const { clock, s, env } = await setup(mode);
      expect((await get(env.base, URL_)).text).toBe(body(1));
      s.mode = mode;
      clock.advance(10_000); // past ttl + swr, within stale-if-error
      const g = await get(env.base, URL_);
      expect(g.status, g.text).toBe(200);
      expect(g.header('x-cache')).toBe('STALE');
      expect(g.text).toBe(body(1));
      expect(g.header('cache-control')).toBe('public, max-age=0');
      expect(env.count(PATH)).toBe(2); // it did try the upstream
      // The failure was not stored: the upstream is asked again next time.
      await get(env.base, URL_);
      expect(env.count(PATH)).toBe(3);
      // And when it recovers, the new content is served and stored.
      s.mode = 'ok';
      s.version = 3;
      const ok = await get(env.base, URL_);
      expect(ok.header('x-cache')).toBe('MISS');
      expect(ok.text).toBe(body(3));
      expect((await get(env.base, URL_)).header('x-cache')).toBe('HIT');
    },
  );

  it.each([
    ['500', 502],
    ['garbage', 502],
    ['hang', 504],
  ] as const)('past the stale-if-error window: upstream %s → %i envelope', async (mode, status) => {
    const { clock, s, env } = await setup(mode);
    await get(env.base, URL_);
    s.mode = mode;
    clock.advance(120_000);
    const g = await get(env.base, URL_);
    expect(g.status).toBe(status);
    expect(g.header('cache-control')).toBe('no-store');
    const e = envelope(g);
    expect(e.code).not.toBe(0);
    expect(e.data).toBeNull();
  });

  it.each([
    ['500', 502, [5021, 5024]],
    ['html', 502, [5021, 5024]],
    ['garbage', 502, [5021, 5024]],
    ['reset', 502, [5021, 5024]],
    ['hang', 504, [5040, 5041]],
  ] as const)('nothing stale to serve: upstream %s → %i envelope', async (mode, status, [lo, hi]) => {
    const { s, env } = await setup(mode);
    s.mode = mode;
    const g = await get(env.base, URL_);
    expect(g.status).toBe(status);
    expect(g.header('cache-control')).toBe('no-store');
    expect(g.header('content-type')).toMatch(/^application\/json/);
    const e = envelope(g);
    expect(e.code).toBeGreaterThanOrEqual(lo);
    expect(e.code).toBeLessThanOrEqual(hi);
    expect(e.data).toBeNull();
  });
});
