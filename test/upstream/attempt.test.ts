import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pool } from 'undici';
import { ProxyError } from '../../src/errors/catalog.js';
import { attempt, type AttemptOptions } from '../../src/upstream/attempt.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';

let fake: FakeUpstream;
let pool: Pool;

beforeAll(async () => {
  fake = await startFakeUpstream();
  pool = new Pool(fake.url, { connections: 2 });
});
afterAll(async () => {
  await pool.destroy();
  await fake.close();
});

const base: AttemptOptions = {
  upstream: 'u0',
  basePath: '',
  path: '/tx/list?page=1',
  headers: { accept: 'application/json', 'accept-encoding': 'identity' },
  timeoutMs: 300,
  maxBodyBytes: 1024,
  attempt: 1,
};

async function failure(o: Partial<AttemptOptions> = {}): Promise<ProxyError> {
  const err = await attempt(pool, { ...base, ...o }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProxyError);
  return err as ProxyError;
}

describe('one attempt', () => {
  it('returns a 2xx JSON object with body, json, upstream and attempt number', async () => {
    fake.setHandler((_req, res) => sendJson(res, 200, '{"code":0,"msg":"success","data":{"height":4842503.0}}'));
    const res = await attempt(pool, { ...base, attempt: 2 });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ code: 0, msg: 'success', data: { height: 4842503 } });
    expect(res.body.toString()).toContain('4842503.0');
    expect(res.upstream).toBe('u0');
    expect(res.attempts).toBe(2);
    expect(res.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('passes a 4xx JSON answer through (not found is an answer)', async () => {
    fake.setHandler((_req, res) => sendJson(res, 404, '{"code":404,"msg":"not found","data":null}'));
    const res = await attempt(pool, base);
    expect(res.status).toBe(404);
    expect(res.json['msg']).toBe('not found');
  });

  it('sends only accept and accept-encoding (plus transport headers)', async () => {
    fake.setHandler((_req, res) => sendJson(res, 200, '{}'));
    const before = fake.requests.length;
    await attempt(pool, { ...base, path: '/block/max' });
    const headers = fake.requests[before]?.headers ?? {};
    expect(Object.keys(headers).sort()).toEqual(expect.arrayContaining(['accept', 'accept-encoding', 'host']));
    for (const k of Object.keys(headers)) expect(['accept', 'accept-encoding', 'host', 'connection']).toContain(k);
    expect(headers['accept-encoding']).toBe('identity');
  });

  it('500 with a JSON envelope → UPSTREAM_ERROR (retryable)', async () => {
    fake.setHandler((_req, res) => sendJson(res, 500, '{"code":500,"msg":"boom","data":null}'));
    const err = await failure();
    expect(err.kind).toBe('UPSTREAM_ERROR');
    expect(err.retryable).toBe(true);
  });

  it('502 HTML → UPSTREAM_ERROR', async () => {
    fake.setHandler((_req, res) => {
      res.statusCode = 502;
      res.setHeader('content-type', 'text/html');
      res.end('<html><body>Bad Gateway</body></html>');
    });
    expect((await failure()).kind).toBe('UPSTREAM_ERROR');
  });

  it('200 HTML or malformed JSON → UPSTREAM_BAD_RESPONSE', async () => {
    fake.setHandler((_req, res) => sendJson(res, 200, '{"code":0,"msg":"succ'));
    expect((await failure()).kind).toBe('UPSTREAM_BAD_RESPONSE');
    fake.setHandler((_req, res) => sendJson(res, 200, '<html>maintenance</html>'));
    expect((await failure()).kind).toBe('UPSTREAM_BAD_RESPONSE');
  });

  it('JSON that is not an object (array, null, number) → UPSTREAM_BAD_RESPONSE', async () => {
    for (const body of ['[1,2]', 'null', '42', '"x"']) {
      fake.setHandler((_req, res) => sendJson(res, 200, body));
      expect((await failure()).kind).toBe('UPSTREAM_BAD_RESPONSE');
    }
  });

  it('a body cut short of its content-length → UPSTREAM_BAD_RESPONSE', async () => {
    fake.setHandler((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
      res.write('{"code":0,"msg":"success","data":{');
      setImmediate(() => res.socket?.destroy());
    });
    expect((await failure()).kind).toBe('UPSTREAM_BAD_RESPONSE');
  });

  it('a chunked body closed before its last chunk → UPSTREAM_BAD_RESPONSE', async () => {
    fake.setHandler((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"code":0,"msg":"success","data":{}}');
      setImmediate(() => res.socket?.destroy());
    });
    expect((await failure()).kind).toBe('UPSTREAM_BAD_RESPONSE');
  });

  it('a connection reset before any answer → retryable error', async () => {
    fake.setHandler((req) => {
      req.socket.destroy();
    });
    const err = await failure();
    expect(['UPSTREAM_BAD_RESPONSE', 'UPSTREAM_UNAVAILABLE']).toContain(err.kind);
    expect(err.retryable).toBe(true);
  });

  it('a body over maxBodyBytes → UPSTREAM_BAD_RESPONSE (declared or streamed)', async () => {
    const big = JSON.stringify({ code: 0, msg: 'success', data: 'x'.repeat(2000) });
    fake.setHandler((_req, res) => sendJson(res, 200, big));
    expect((await failure()).kind).toBe('UPSTREAM_BAD_RESPONSE');
    fake.setHandler((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(big); // chunked, no content-length
    });
    expect((await failure()).kind).toBe('UPSTREAM_BAD_RESPONSE');
  });

  it('a hanging upstream → UPSTREAM_TIMEOUT after timeoutMs', async () => {
    fake.setHandler(() => new Promise<void>(() => {}));
    const started = performance.now();
    const err = await failure({ timeoutMs: 100 });
    expect(err.kind).toBe('UPSTREAM_TIMEOUT');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('a caller abort rejects with the abort reason, not a timeout', async () => {
    fake.setHandler(() => new Promise<void>(() => {}));
    const ctl = new AbortController();
    const p = failure({ timeoutMs: 5000, signal: ctl.signal });
    setImmediate(() => ctl.abort(new ProxyError('SHUTTING_DOWN')));
    expect((await p).kind).toBe('SHUTTING_DOWN');
  });

  it('an accept hook rejection → UPSTREAM_LAGGING (or the given kind)', async () => {
    fake.setHandler((_req, res) => sendJson(res, 200, '{"code":0,"msg":"success","data":{"height":5}}'));
    const err = await failure({ accept: () => 'behind' });
    expect(err.kind).toBe('UPSTREAM_LAGGING');
    expect(err.detail).toBe('behind');
    expect((await failure({ accept: () => 'no height', acceptKind: 'UPSTREAM_BAD_RESPONSE' })).kind).toBe(
      'UPSTREAM_BAD_RESPONSE',
    );
  });
});
