/**
 * A request the HTTP parser refuses reaches no backend: Node's parser fails
 * on a Transfer-Encoding whose last coding is not chunked only after handing
 * the request on, so without a check the passthrough route forwards it (with
 * an empty X-Forwarded-For, no access-log line, and no answer to its client).
 * It is answered 400 and the connection closed; every request that reaches a
 * backend is logged with its client.
 */
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type ProxyHandle } from '../../src/app.js';
import { serveFixtures, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { untilEmitted } from '../helpers/until.js';
import { defaultConfig } from '../../src/config/defaults.js';
import { testConfig } from '../helpers/proxy.js';
import { parseRaw, rawConnect } from './raw.js';

describe('requests the parser refuses', () => {
  let api: FakeUpstream;
  let legacy: FakeUpstream;
  let proxy: ProxyHandle;
  const forwarded: Array<{ url: string; xff: string | undefined }> = [];
  const lines: Array<Record<string, unknown>> = [];
  // Told after each chunk of log lines is taken in.
  const logged = new EventEmitter();

  beforeAll(async () => {
    api = await startFakeUpstream(serveFixtures());
    legacy = await startFakeUpstream((req, res) => {
      const xff = req.headers['x-forwarded-for'];
      forwarded.push({ url: req.url ?? '', xff: Array.isArray(xff) ? xff.join(',') : xff });
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('legacy');
      });
    });
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n'))
          if (l.trim() !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
        logged.emit('line');
        done();
      },
    });
    const config = testConfig([api.url], {
      logLevel: 'info',
      passthrough: {
        ...defaultConfig().passthrough,
        routes: [{ prefix: '/legacy', target: legacy.url }],
        timeoutMs: 5000,
      },
    });
    proxy = await startProxy(config, { logger: pino({ level: 'info' }, sink) });
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([api?.close(), legacy?.close()]);
  });

  const exchange = async (request: string) => parseRaw((await rawConnect(proxy.url, request).closed).text);
  /** A plain request after the refused ones: once the backend has it, anything sent before would have come first. */
  const fence = async (tag: string) => {
    const res = await exchange(`GET /legacy/fence-${tag} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(200);
    await legacy.until(() => forwarded.some((f) => f.url === `/legacy/fence-${tag}`), 'the fence request');
  };

  it.each([
    ['GET', 'xchunked'],
    ['GET', 'gzip'],
    ['GET', 'chunked, xchunked'],
    ['HEAD', 'identity'],
    ['GET', 'chunked;q=1'],
  ])('%s with Transfer-Encoding: %s is answered 400 and never forwarded', async (method, te) => {
    const path = `/legacy/refused-${forwarded.length}`;
    const res = await exchange(`${method} ${path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: ${te}\r\n\r\n`);
    expect(res.status).toBe(400);
    expect(res.headers).toContain('connection: close');
    if (method === 'GET') expect(res.body).toMatchObject({ code: 4000, data: null });
    await fence(`${forwarded.length}`);
    expect(forwarded.map((f) => f.url)).not.toContain(path);
  });

  it('an API request with such a framing costs the upstream nothing', async () => {
    const res = await exchange('GET /tx/list?page=2 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n');
    expect(res.status).toBe(400);
    // A miss after it: once the upstream has that one, the refused one would have come first.
    expect((await exchange('GET /tx/list?page=3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).status).toBe(200);
    const asked = api.requests.map((r) => r.url).filter((u) => u.startsWith('/tx/list?'));
    expect(asked.some((u) => u.includes('page=3'))).toBe(true);
    expect(asked.some((u) => u.includes('page=2'))).toBe(false);
  });

  it('a request that reaches the backend carries and logs its client', async () => {
    await fence('logged');
    const f = forwarded.find((x) => x.url === '/legacy/fence-logged');
    expect(f?.xff).toBe('127.0.0.1');
    await untilEmitted(
      logged,
      'line',
      () => lines.some((l) => l.passthrough === '/legacy' && l.status === 200),
      'the access line',
    );
    for (const l of lines.filter((x) => x.passthrough === '/legacy'))
      expect(l.client, JSON.stringify(l)).toBe('127.0.0.1');
  });
});
