/**
 * X-Request-Id on every answer (src/http/request-id.ts, the epilogue): a
 * client's reasonable id is echoed, any other replaced by a generated one;
 * the id sent is the `reqId` of the answer's access-log line. On API answers
 * (routed and pre-router hits), pages, batch, envelopes (400, 404, 405, 429)
 * and the operator routes. The fast path charges the rate limit to the same
 * client as the router, X-Forwarded-For from a trusted proxy included.
 */
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProxy } from '../../src/app.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { testConfig } from '../helpers/proxy.js';
import { untilEmitted } from '../helpers/until.js';

type Line = Record<string, unknown>;
const GENERATED = /^[0-9a-f]{8}-[0-9a-z]+$/;

describe('X-Request-Id', () => {
  let sim: SimulatorHandle;
  let built: Awaited<ReturnType<typeof buildProxy>>;
  let base: string;
  let routed = 0;
  const lines: Line[] = [];
  // Told after each chunk of log lines is taken in.
  const logged = new EventEmitter();

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 });
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n')) if (l.trim() !== '') lines.push(JSON.parse(l) as Line);
        logged.emit('line');
        done();
      },
    });
    const config = testConfig([sim.url], {
      logLevel: 'info',
      accessLog: 'misses',
      trustProxy: ['127.0.0.1'],
      rateLimit: { ...testConfig([]).rateLimit, enabled: true, max: 3, windowMs: 600_000 },
    });
    built = await buildProxy(config, { logger: pino({ level: 'info' }, sink) });
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

  /** Each request from its own client (X-Forwarded-For), so the limit of 3 is reached only when meant. */
  let client = 0;
  async function ask(path: string, headers: Record<string, string> = {}, method = 'GET', body?: string) {
    const r = await request(`${base}${path}`, {
      method,
      headers: { 'x-forwarded-for': `198.51.100.${++client}`, ...headers },
      ...(body === undefined ? {} : { body }),
    });
    await r.body.arrayBuffer();
    return { status: r.statusCode, id: r.headers['x-request-id'], cache: r.headers['x-cache'] };
  }

  const lineOf = async (id: unknown): Promise<Line> => {
    await untilEmitted(
      logged,
      'line',
      () => lines.some((l) => l['reqId'] === id),
      `a log line with reqId ${String(id)}`,
    );
    return lines.find((l) => l['reqId'] === id)!;
  };

  it('echoes a reasonable client id, on the answer and its log line', async () => {
    const id = 'f47ac10b-58cc-4372-a567-0e02b2c3d479';
    const a = await ask('/block/detail?h=101', { 'x-request-id': id });
    expect([a.status, a.cache, a.id]).toEqual([200, 'MISS', id]);
    expect(await lineOf(id)).toMatchObject({ msg: 'request', endpoint: 'block/detail', cache: 'MISS', status: 200 });
  });

  it('replaces an unreasonable one with a generated id, the one its log line carries', async () => {
    for (const bad of ['x'.repeat(129), 'two words', '<script>', '']) {
      const a = await ask(`/block/detail?h=${102 + bad.length}`, { 'x-request-id': bad });
      expect(a.id).toMatch(GENERATED);
      expect(await lineOf(a.id)).toMatchObject({ endpoint: 'block/detail', status: 200 });
    }
    expect(lines.some((l) => l['reqId'] === 'two words')).toBe(false);
  });

  it('generates one when none is sent: the log line’s reqId, fields rounded to 0.1 ms', async () => {
    const a = await ask('/block/detail?h=120');
    expect(a.id).toMatch(GENERATED);
    const line = await lineOf(a.id);
    expect(line).toMatchObject({ cache: 'MISS', status: 200 });
    for (const field of ['ms', 'upstreamMs']) {
      const v = line[field];
      expect(typeof v, field).toBe('number');
      expect(Math.round((v as number) * 10) / 10, field).toBe(v);
    }
  });

  it('on pre-router hits, each its own, charged to the forwarded client', async () => {
    const path = '/block/detail?h=130';
    expect((await ask(path)).cache).toBe('MISS');
    expect((await ask(path)).cache).toBe('HIT'); // routed, remembered
    const before = routed;
    const ids = new Set<unknown>();
    for (let i = 0; i < 3; i++) {
      const hit = await ask(path, { 'x-forwarded-for': '203.0.113.7' });
      expect([hit.status, hit.cache]).toEqual([200, 'HIT']);
      expect(hit.id).toMatch(GENERATED);
      ids.add(hit.id);
    }
    expect(ids.size).toBe(3);
    expect((await ask(path, { 'x-request-id': 'client-7' })).id).toBe('client-7');
    // The forwarded client's fourth request is over its limit of 3; others are not.
    const refused = await ask(path, { 'x-forwarded-for': '203.0.113.7', 'x-request-id': 'over-1' });
    expect([refused.status, refused.id]).toEqual([429, 'over-1']);
    expect(await lineOf('over-1')).toMatchObject({ endpoint: 'block/detail', cache: 'ERROR', status: 429 });
    expect((await ask(path, { 'x-forwarded-for': '203.0.113.8' })).status).toBe(200);
    expect(routed).toBe(before); // none of them routed
  });

  it('on pages, batch answers, envelopes and the operator routes', async () => {
    const page = await ask('/pages/home', { 'x-request-id': 'page-1' });
    expect([page.status, page.id]).toEqual([200, 'page-1']);
    expect(await lineOf('page-1')).toMatchObject({ msg: 'page', page: 'home', status: 200 });
    const batch = await ask(
      '/batch',
      { 'x-request-id': 'batch-1', 'content-type': 'application/json' },
      'POST',
      '{"requests":["block/detail?h=140"]}',
    );
    expect([batch.status, batch.id]).toEqual([200, 'batch-1']);
    expect(await lineOf('batch-1')).toMatchObject({ msg: 'batch', batch: 1, items: '200:MISS' });
    for (const [path, method, status] of [
      ['/block/detail?h=abc', 'GET', 400],
      ['/no/such/path', 'GET', 404],
      ['/block/detail?h=1', 'DELETE', 405],
    ] as const) {
      const id = `env-${status}`;
      const a = await ask(path, { 'x-request-id': id }, method);
      expect([a.status, a.cache, a.id]).toEqual([status, 'ERROR', id]);
      expect(await lineOf(id)).toMatchObject({ cache: 'ERROR', status });
    }
    const generated = await ask('/no/such/path');
    expect(generated.id).toMatch(GENERATED);
    expect(await lineOf(generated.id)).toMatchObject({ status: 404 });
    const stream = await request(`${base}/stream/heads`, { headers: { 'x-request-id': 'stream-1' } });
    expect([stream.statusCode, stream.headers['x-request-id']]).toEqual([200, 'stream-1']);
    stream.body.destroy();
    for (const path of ['/healthz', '/readyz', '/openapi.json'])
      expect((await ask(path, { 'x-request-id': 'ops-1' })).id, path).toBe('ops-1');
    expect(
      (await ask('/block/max', { 'access-control-request-method': 'GET', origin: 'https://a.test' }, 'OPTIONS')).id,
    ).toMatch(GENERATED);
  });
});
