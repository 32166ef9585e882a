/**
 * The upstream pool's request tunables reloaded in place (the live settings
 * UPSTREAM_MAX_ATTEMPTS, UPSTREAM_HEDGE_AFTER_MS, UPSTREAM_HEDGE_QUANTILE,
 * UPSTREAM_MAX_LAG_BLOCKS): the pool reads them at each request, so a new
 * running configuration given to the swap point changes the next request.
 * A real proxy and a real upstream on sockets.
 */
import { pino } from 'pino';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildProxy } from '../../src/app.js';
import { sendJson, serveFixtures, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { testConfig } from '../helpers/proxy.js';

const HASH = (n: number): string => n.toString(16).padStart(64, '0');

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.reverse()) await c();
  closers = [];
});

describe('reloaded upstream tunables', () => {
  it('UPSTREAM_MAX_ATTEMPTS: 3 attempts on a failing upstream, then 1 after the new configuration', async () => {
    const fixtures = serveFixtures();
    const fake: FakeUpstream = await startFakeUpstream((req, res) =>
      (req.url ?? '').startsWith('/tx/detail') ? sendJson(res, 500, '{"code":500}') : fixtures(req, res),
    );
    closers.push(() => fake.close());
    const config = testConfig([fake.url], { upstream: { maxAttempts: 3, breakerFailures: 1000, hedgeAfterMs: 0 } });
    const built = await buildProxy(config, { logger: pino({ level: 'silent' }) });
    closers.push(() => built.close());
    const url = await built.app.listen({ port: 0, host: '127.0.0.1' });
    const attempts = async (n: number): Promise<number> => {
      const before = fake.count('/tx/detail');
      await (await request(`${url}/tx/detail?hash=${HASH(n)}`)).body.dump();
      return fake.count('/tx/detail') - before;
    };
    expect(await attempts(1)).toBe(3);
    const current = built.live.current;
    built.live.apply({ ...current, upstream: { ...current.upstream, maxAttempts: 1 } });
    expect(await attempts(2)).toBe(1);
  });
});
