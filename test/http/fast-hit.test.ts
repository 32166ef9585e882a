/**
 * Fresh hits answered before the router: only for a URL the routes validated
 * and answered as a fresh hit before, byte for byte; the same status, headers
 * and bytes as the routed answer (GET, HEAD, gzip, 304); everything else
 * (another spelling of the URL, a stale entry, an invalid URL) still goes
 * through Fastify.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { pino } from 'pino';
import { request } from 'undici';
import { buildProxy } from '../../src/app.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { testConfig } from '../helpers/proxy.js';
import { fakeClock } from '../helpers/clock.js';

async function raw(url: string, method: 'GET' | 'HEAD' = 'GET', headers: Record<string, string> = {}) {
  const r = await request(url, { method, headers });
  const body = Buffer.from(await r.body.arrayBuffer());
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers))
    if (v !== undefined && k !== 'date' && k !== 'keep-alive') h[k] = Array.isArray(v) ? v.join(', ') : v;
  return { status: r.statusCode, headers: h, body };
}

describe('pre-router fresh hits', () => {
  let sim: SimulatorHandle;
  let base: string;
  let routed = 0;
  const clock = fakeClock();
  let built: Awaited<ReturnType<typeof buildProxy>>;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 });
    built = await buildProxy(testConfig([sim.url], { rateLimit: { enabled: true, max: 1_000_000 } }), {
      logger: pino({ level: 'silent' }),
      clock: clock.now,
    });
    built.app.addHook('onRequest', (_req, _reply, done) => {
      routed++;
      done();
    });
    base = await built.app.listen({ port: 0, host: '127.0.0.1' });
    await built.pool.firstProbe;
  });
  afterAll(async () => {
    await built?.close();
    await sim?.close();
  });

  it('answers a remembered URL like the router does, without routing it', async () => {
    const path = '/block/detail?h=100';
    expect((await raw(base + path)).headers['x-cache']).toBe('MISS');
    const viaRouter = await raw(base + path);
    expect(viaRouter.headers['x-cache']).toBe('HIT');
    const before = routed;
    const fast = await raw(base + path);
    expect(routed).toBe(before); // not routed
    expect(fast.status).toBe(200);
    // Each answer has its own request id; the rest is the same.
    expect(fast.headers['x-request-id']).not.toBe(viaRouter.headers['x-request-id']);
    expect({ ...fast.headers, 'x-request-id': '' }).toEqual({ ...viaRouter.headers, 'x-request-id': '' });
    expect(fast.body.equals(viaRouter.body)).toBe(true);

    const head = await raw(base + path, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    // (undici closes after a HEAD whichever path answers it: compare the rest)
    expect({ ...head.headers, connection: '', 'x-request-id': '' }).toEqual({
      ...viaRouter.headers,
      connection: '',
      'x-request-id': '',
    });

    const etag = viaRouter.headers['etag']!;
    const notModified = await raw(base + path, 'GET', { 'if-none-match': etag });
    expect(notModified.status).toBe(304);
    expect(notModified.body.length).toBe(0);
    expect(notModified.headers['etag']).toBe(etag);
    expect(routed).toBe(before);
  });

  it('sends the stored gzip variant and re-stamps Age as time passes', async () => {
    const path = '/block/detail?h=101';
    await raw(base + path);
    await waitFor(() => built.memory.peek('block/detail?h=101') !== undefined, 5000, 'stored').catch(() => undefined);
    await raw(base + path); // remembered
    let gz = await raw(base + path, 'GET', { 'accept-encoding': 'gzip' });
    // Variants are compressed in the background after the store.
    await waitFor(
      async () =>
        (gz = await raw(base + path, 'GET', { 'accept-encoding': 'gzip' })).headers['content-encoding'] === 'gzip',
      5000,
      'the gzip variant',
    );
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['vary']).toBe('Accept-Encoding');
    const plain = await raw(base + path);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect(plain.headers['age']).toBe('0');
    const maxAge = Number(/max-age=(\d+)/.exec(plain.headers['cache-control']!)![1]);
    clock.advance(3_000);
    const later = await raw(base + path);
    expect(later.headers['age']).toBe('3');
    expect(later.headers['cache-control']).toBe(`public, max-age=${maxAge - 3}`);
  });

  it('routes every other spelling, invalid URLs and entries no longer fresh', async () => {
    const path = '/block/detail?h=102';
    await raw(base + path);
    await raw(base + path);
    let before = routed;
    await raw(base + path);
    expect(routed).toBe(before);
    for (const other of [
      '/block/detail?h=102&',
      '/block/detail?h=0102',
      '/block/detail/?h=102',
      '/block/detail?h=abc',
    ]) {
      before = routed;
      await raw(base + other);
      expect(routed, other).toBe(before + 1);
    }
    expect((await raw(base + '/block/detail?h=abc')).status).toBe(400);
    // Past its freshness the entry is not a fresh hit: the router serves it (STALE or MISS).
    clock.advance(400 * 24 * 3_600_000);
    before = routed;
    const r = await raw(base + path);
    expect(routed).toBe(before + 1);
    expect(r.headers['x-cache']).not.toBe('HIT');
  });
});
