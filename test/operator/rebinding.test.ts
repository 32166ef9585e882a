/**
 * DNS rebinding: a page whose name is rebound to the proxy's address sends
 * its own name as Host (and as Origin, with Sec-Fetch-Site: same-origin) from
 * an operator's address. Operator routes answer such a request exactly as an
 * unknown path; they answer a Host that is an IP literal, localhost or a name
 * in ADMIN_HOSTS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask } from '../helpers/ask.js';
import { get, startEnv, type Env } from '../helpers/proxy-kit.js';

const OPERATOR_GETS = ['/status', '/metrics', '/dashboard', '/dashboard/data.json', '/dashboard/history.json'];

describe('operator routes and the Host header', () => {
  let env: Env;
  let port = '';
  beforeAll(async () => {
    env = await startEnv({ patch: { adminHosts: ['ops.example.net'] } });
    port = new URL(env.base).port;
  });
  afterAll(async () => {
    await env?.close();
  });

  const rebound = (name: string) => ({
    host: `${name}:${port}`,
    origin: `http://${name}:${port}`,
    'sec-fetch-site': 'same-origin',
  });
  /** The 404 envelope of an unknown path, with the path asked. */
  const notFound = (path: string) => ({ code: 4040, msg: `no such endpoint: ${path}`, data: null });

  it('a rebound name gets the 404 envelope of an unknown path on every operator route', async () => {
    const unknown = await ask(env.base, '/no-such-thing', { headers: rebound('rebind.example') });
    expect(unknown.status).toBe(404);
    for (const path of OPERATOR_GETS) {
      const r = await ask(env.base, path, { headers: rebound('rebind.example') });
      expect(r.status, path).toBe(404);
      expect(JSON.parse(r.text), path).toEqual(notFound(path));
      expect(r.headers['content-type'], path).toBe(unknown.headers['content-type']);
    }
  });

  it('a rebound name cannot purge: 404, and the cache keeps what it held', async () => {
    await get(env.base, '/block/max');
    expect((await get(env.base, '/block/max')).header('x-cache')).toBe('HIT');
    for (const method of ['POST', 'OPTIONS', 'GET']) {
      const r = await ask(env.base, '/purge?all=true', { method, headers: rebound('rebind.example') });
      expect(r.status, method).toBe(404);
      expect(JSON.parse(r.text), method).toEqual(notFound('/purge'));
    }
    expect((await get(env.base, '/block/max')).header('x-cache')).toBe('HIT');
  });

  it('IP literals, localhost and ADMIN_HOSTS names are answered', async () => {
    const hosts = [
      `127.0.0.1:${port}`,
      '127.0.0.1',
      `localhost:${port}`,
      'LOCALHOST',
      `[::1]:${port}`,
      `ops.example.net:${port}`,
      'OPS.example.net.',
    ];
    for (const host of hosts) {
      for (const path of OPERATOR_GETS)
        expect((await ask(env.base, path, { headers: { host } })).status, host).toBe(200);
    }
    const purge = await ask(env.base, '/purge?key=/block/max', { method: 'POST', headers: rebound('ops.example.net') });
    expect(purge.status).toBe(200);
    expect(JSON.parse(purge.text)).toMatchObject({ code: 0, data: { kind: 'key', target: 'block/max' } });
  });

  it('names that only look like one are refused', async () => {
    for (const host of [
      `sub.ops.example.net:${port}`,
      `ops.example.net.rebind.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `localhost.rebind.example`,
      `[::1]x:${port}`,
      `127.0.0.1:${port}:1`,
    ]) {
      expect((await ask(env.base, '/status', { headers: { host } })).status, host).toBe(404);
    }
  });

  it('the lists swapped while running take effect on the next request', async () => {
    const host = `new.example.net:${port}`;
    expect((await ask(env.base, '/status', { headers: { host } })).status).toBe(404);
    env.proxy.operators.set({ adminAllow: ['loopback'], purgeAllow: ['loopback'], adminHosts: ['new.example.net'] });
    expect((await ask(env.base, '/status', { headers: { host } })).status).toBe(200);
    expect((await ask(env.base, '/status', { headers: { host: `ops.example.net:${port}` } })).status).toBe(404);
    env.proxy.operators.set({ adminAllow: ['loopback'], purgeAllow: ['loopback'], adminHosts: ['ops.example.net'] });
  });

  it('the public API answers any Host', async () => {
    const r = await ask(env.base, '/block/max', { headers: rebound('rebind.example') });
    expect(r.status).toBe(200);
  });
});
