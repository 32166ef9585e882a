/**
 * Purging has its own list, PURGE_ALLOW (default loopback), apart from
 * ADMIN_ALLOW's read-only routes: a Prometheus server or a pod of the cluster
 * may read /metrics and /status and still not purge. Refused clients get the
 * 404 envelope of an unknown path, whatever the method.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ask } from '../helpers/ask.js';
import { startEnv, type Env } from '../helpers/proxy-kit.js';

const NOT_FOUND = { code: 4040, msg: 'no such endpoint: /purge', data: null };

describe('PURGE_ALLOW, apart from ADMIN_ALLOW', () => {
  let env: Env | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  it('by default a private address reads /status and /metrics but cannot purge; loopback can', async () => {
    env = await startEnv({ patch: { trustProxy: ['127.0.0.1'] } });
    const pod = { 'x-forwarded-for': '10.1.2.3' };
    expect((await ask(env.base, '/status', { headers: pod })).status).toBe(200);
    expect((await ask(env.base, '/metrics', { headers: pod })).status).toBe(200);
    for (const method of ['POST', 'OPTIONS', 'GET']) {
      const r = await ask(env.base, '/purge?all=true', { method, headers: pod });
      expect(r.status, method).toBe(404);
      expect(JSON.parse(r.text), method).toEqual(NOT_FOUND);
    }
    const here = await ask(env.base, '/purge?all=true', { method: 'POST' });
    expect(here.status).toBe(200);
    expect(JSON.parse(here.text)).toMatchObject({ code: 0, data: { kind: 'all' } });
  });

  it('a client in ADMIN_ALLOW only is refused; one in PURGE_ALLOW only may purge and not read', async () => {
    env = await startEnv({ patch: { adminAllow: ['127.0.0.1'], purgeAllow: ['127.0.0.2'] } });
    const scraper = { localAddress: '127.0.0.1' };
    const purger = { localAddress: '127.0.0.2' };
    expect((await ask(env.base, '/metrics', scraper)).status).toBe(200);
    const refused = await ask(env.base, '/purge?all=true', { ...scraper, method: 'POST' });
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.text)).toEqual(NOT_FOUND);
    expect((await ask(env.base, '/purge?all=true', { ...purger, method: 'POST' })).status).toBe(200);
    expect((await ask(env.base, '/metrics', purger)).status).toBe(404);
    // The method refusal of /purge is for those who may purge only.
    expect((await ask(env.base, '/purge', { ...purger, method: 'GET' })).status).toBe(405);
    expect((await ask(env.base, '/purge', { ...scraper, method: 'GET' })).status).toBe(404);
  });
});
