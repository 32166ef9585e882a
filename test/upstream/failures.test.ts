/**
 * Upstream failures on a cold key: 500 envelope, 502 HTML, HTML with 200,
 * malformed / non-object / empty JSON, truncated body, connection reset, hang,
 * oversized body, connection refused. Each gives a 502/504 `{code, msg, data:
 * null}` envelope with `no-store`, is never cached (the next request goes
 * upstream again), and a recovered upstream is served normally.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../helpers/fake-upstream.js';
import { startTestProxy } from '../helpers/proxy.js';
import { envelope, fixture, get, routes, sendJson, startEnv, type Env, type Handler } from '../helpers/proxy-kit.js';

const PATH = 'address/info';
const URL_ = `/address/info?address=n1d4wXxTVmK4rzyiN1vxhMuzxT441bxr8Fg`;

const BAD_RESPONSE: [number, number] = [5021, 5024];
const TIMEOUT: [number, number] = [5040, 5041];

const cases: Array<[label: string, handler: Handler, status: number, codes: [number, number]]> = [
  [
    '500 with an error envelope',
    (_q, r) => sendJson(r, 500, '{"code":500,"msg":"internal error","data":null}'),
    502,
    BAD_RESPONSE,
  ],
  [
    '503 with an empty body',
    (_q, r) => {
      r.statusCode = 503;
      r.end();
    },
    502,
    BAD_RESPONSE,
  ],
  [
    '502 with an HTML page',
    (_q, r) => {
      r.statusCode = 502;
      r.setHeader('content-type', 'text/html');
      r.end('<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>');
    },
    502,
    BAD_RESPONSE,
  ],
  [
    '200 with an HTML page',
    (_q, r) => {
      r.statusCode = 200;
      r.setHeader('content-type', 'text/html');
      r.end('<html><body>maintenance</body></html>');
    },
    502,
    BAD_RESPONSE,
  ],
  [
    '200 with malformed JSON',
    (_q, r) => sendJson(r, 200, '{"code":0,"msg":"success","data":{"address":"n1'),
    502,
    BAD_RESPONSE,
  ],
  ['200 with a JSON array', (_q, r) => sendJson(r, 200, '[1,2,3]'), 502, BAD_RESPONSE],
  ['200 with JSON null', (_q, r) => sendJson(r, 200, 'null'), 502, BAD_RESPONSE],
  ['200 with an empty body', (_q, r) => sendJson(r, 200, ''), 502, BAD_RESPONSE],
  [
    '200 with a truncated body (content-length larger than sent, then destroyed)',
    (_q, r) => {
      r.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
      r.write(fixture(PATH).body.slice(0, 60));
      setImmediate(() => r.socket?.destroy());
    },
    502,
    BAD_RESPONSE,
  ],
  [
    '200 chunked, then the connection dies mid-body',
    (_q, r) => {
      r.writeHead(200, { 'content-type': 'application/json' });
      r.write(fixture(PATH).body.slice(0, 60));
      setImmediate(() => r.socket?.destroy());
    },
    502,
    BAD_RESPONSE,
  ],
  ['connection reset before any answer', (q) => void q.socket.destroy(), 502, BAD_RESPONSE],
  ['hang (no answer at all)', () => new Promise<void>(() => {}), 504, TIMEOUT],
  [
    'headers then a body that never ends',
    (_q, r) => {
      r.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
      r.write('{"code":0,');
    },
    504,
    TIMEOUT,
  ],
  [
    'a body above maxBodyBytes',
    (_q, r) => sendJson(r, 200, `{"code":0,"msg":"success","data":{"x":"${'a'.repeat(20_000)}"}}`),
    502,
    BAD_RESPONSE,
  ],
];

describe('upstream failures are errors, never cached', () => {
  let env: Env | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  it.each(cases)('%s → %i envelope, then the upstream is asked again', async (_label, failing, status, [lo, hi]) => {
    let fail = true;
    env = await startEnv({
      handler: routes({ [PATH]: (q, r) => (fail ? failing(q, r) : sendJson(r, 200, fixture(PATH).body)) }),
      patch: {
        upstream: {
          maxAttempts: 1,
          hedgeAfterMs: 0,
          attemptTimeoutMs: 300,
          totalDeadlineMs: 600,
          maxBodyBytes: 10_000,
        },
      },
    });
    const a = await get(env.base, URL_);
    expect(a.status, a.text).toBe(status);
    expect(a.header('content-type')).toMatch(/^application\/json/);
    expect(a.header('cache-control')).toBe('no-store');
    expect(a.header('x-cache')).not.toBe('HIT');
    const e = envelope(a);
    expect(Object.keys(e).sort()).toEqual(['code', 'data', 'msg']);
    expect(e.code).toBeGreaterThanOrEqual(lo);
    expect(e.code).toBeLessThanOrEqual(hi);
    expect(e.data).toBeNull();
    // Nothing of the upstream's answer leaks through.
    expect(a.text).not.toContain('nginx');
    expect(a.text).not.toContain('maintenance');
    expect(env.count(PATH)).toBe(1);

    const b = await get(env.base, URL_);
    expect(b.status).toBe(status);
    expect(env.count(PATH)).toBe(2);

    fail = false;
    const c = await get(env.base, URL_);
    expect(c.status).toBe(200);
    expect(c.header('x-cache')).toBe('MISS');
    expect(c.text).toBe(fixture(PATH).body);
    expect(env.count(PATH)).toBe(3);
  });

  it('connection refused → 502 envelope', async () => {
    const dead = await startFakeUpstream();
    const url = dead.url;
    await dead.close();
    const proxy = await startTestProxy([url], {
      upstream: { maxAttempts: 1, hedgeAfterMs: 0, connectTimeoutMs: 300, attemptTimeoutMs: 300, totalDeadlineMs: 600 },
    });
    try {
      const g = await get(proxy.url, URL_);
      expect(g.status).toBe(502);
      const e = envelope(g);
      expect(e.code).toBeGreaterThanOrEqual(5021);
      expect(e.code).toBeLessThanOrEqual(5024);
      expect(e.data).toBeNull();
      expect(g.header('cache-control')).toBe('no-store');
    } finally {
      await proxy.close();
    }
  });

  it('with retries enabled, a failing request is still never cached and retries stay bounded', async () => {
    let fail = true;
    env = await startEnv({
      handler: routes({
        [PATH]: (_q, r) =>
          fail ? sendJson(r, 500, '{"code":500,"msg":"x","data":null}') : sendJson(r, 200, fixture(PATH).body),
      }),
      patch: { upstream: { maxAttempts: 3, hedgeAfterMs: 0, breakerFailures: 100 } },
    });
    const a = await get(env.base, URL_);
    expect(a.status).toBe(502);
    const n = env.count(PATH);
    expect(n).toBeGreaterThanOrEqual(1);
    expect(n).toBeLessThanOrEqual(3);
    fail = false;
    const b = await get(env.base, URL_);
    expect(b.status).toBe(200);
    expect(b.header('x-cache')).toBe('MISS');
  });
});
