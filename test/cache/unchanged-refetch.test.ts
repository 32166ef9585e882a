/**
 * Refetches of unchanged content, per endpoint: a refetch whose answer differs
 * from the entry it replaces only in its volatile stamps counts as unchanged
 * (and keeps the ETag); a real change counts as a refetch only. Shown in
 * /metrics and in /status (cache.refetches).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, metric, routes, sendJson, settableClock, startEnv, type Env } from '../helpers/proxy-kit.js';

describe('unchanged refetches', () => {
  const clock = settableClock();
  let env: Env;
  let height = 4_842_503;
  let stamp = 1_595_164_447_597;
  beforeAll(async () => {
    env = await startEnv({
      clock: clock.now,
      handler: routes({
        'block/max': (_req, res) =>
          sendJson(res, 200, `{"code":0,"msg":"success","data":{"height":${height},"server_timestamp":${++stamp}}}`),
      }),
    });
  });
  afterAll(async () => {
    await env.close();
  });

  const counts = async (): Promise<{ all: number; same: number }> => ({
    all: await metric(env.base, 'chainproxy_refetches_total', { endpoint: 'block/max' }),
    same: await metric(env.base, 'chainproxy_refetches_unchanged_total', { endpoint: 'block/max' }),
  });

  it('counts a refetch that only moved the stamps as unchanged, and a new head as changed', async () => {
    expect((await get(env.base, '/block/max')).header('x-cache')).toBe('MISS');
    const before = await counts();
    clock.advance(600_000);
    expect((await get(env.base, '/block/max')).header('x-cache')).toBe('MISS');
    const same = await counts();
    expect(same).toEqual({ all: before.all + 1, same: before.same + 1 });

    height += 1;
    clock.advance(600_000);
    expect((await get(env.base, '/block/max')).header('x-cache')).toBe('MISS');
    expect(await counts()).toEqual({ all: same.all + 1, same: same.same });

    const status = (await get(env.base, '/status')).json as {
      data: { cache: { refetches: { refetches: number; unchanged: number } } };
    };
    expect(status.data.cache.refetches).toEqual({ refetches: same.all + 1, unchanged: same.same });
  });

  it('a first fetch of a key is no refetch', async () => {
    const before = await metric(env.base, 'chainproxy_refetches_total', { endpoint: 'token/detail' });
    expect((await get(env.base, '/token/detail?token=NAX')).header('x-cache')).toBe('MISS');
    expect(await metric(env.base, 'chainproxy_refetches_total', { endpoint: 'token/detail' })).toBe(before);
  });
});
