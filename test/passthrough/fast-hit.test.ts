/**
 * Passthrough hits before the router: once a passthrough URL was answered
 * with a fresh hit, a later GET of it (whatever its ignored cache-busters) is
 * answered without routing, like an API hit; a request with credentials is
 * still routed (it bypasses the cache).
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProxy } from '../../src/app.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { testConfig } from '../helpers/proxy.js';
import { passConfig, raw } from './kit.js';

describe('passthrough hits before the router', () => {
  let sim: SimulatorHandle;
  let backend: FakeUpstream;
  let base: string;
  let routed = 0;
  let built: Awaited<ReturnType<typeof buildProxy>>;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 });
    backend = await startFakeUpstream((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"n":${backend.requests.length},"url":${JSON.stringify(req.url)}}`);
    });
    const passthrough = passConfig([{ prefix: '/explorer', target: backend.url }], {
      cache: { '/explorer': { kind: 'ttl', ms: 60_000 } },
      ignoreParams: ['timestamp'],
    });
    built = await buildProxy(testConfig([sim.url], { passthrough }), { logger: pino({ level: 'silent' }) });
    built.app.addHook('onRequest', (_req, _reply, done) => {
      routed++;
      done();
    });
    base = await built.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await built?.close();
    await backend?.close();
    await sim?.close();
  });

  it('a known hit, whatever its timestamp=, is answered without routing; credentials are routed', async () => {
    const path = (t: number) => `/explorer/tx/latest?page=1&timestamp=${t}`;
    expect((await raw(base, path(1))).headers['x-cache']).toBe('MISS');
    const viaRouter = await raw(base, path(2));
    expect(viaRouter.headers['x-cache']).toBe('HIT');
    const before = routed;
    const fast = await raw(base, path(3));
    expect(routed).toBe(before);
    expect([fast.status, fast.headers['x-cache']]).toEqual([200, 'HIT']);
    expect(fast.body.equals(viaRouter.body)).toBe(true);
    expect(fast.headers['access-control-allow-origin']).toBe('*');
    const withCookie = await raw(base, path(4), { headers: { cookie: 'a=1' } });
    expect(routed).toBe(before + 1);
    expect(withCookie.headers['x-cache']).toBe('BYPASS');
    expect(backend.count('/explorer/tx/latest')).toBe(2);
  });
});
