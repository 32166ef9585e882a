/** Passthrough requests get an access-log line (they are never hits), unless ACCESS_LOG=off. */
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startProxy, type ProxyHandle } from '../../src/app.js';
import type { AccessLog, PassthroughConfig } from '../../src/config/types.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { testConfig } from '../helpers/proxy.js';
import { untilEmitted } from '../helpers/until.js';

let proxy: ProxyHandle | undefined;
let legacy: FakeUpstream | undefined;
// Told after each chunk of log lines is taken in.
const logged = new EventEmitter();
afterEach(async () => {
  await proxy?.close();
  await legacy?.close();
});

async function linesFor(
  accessLog: AccessLog,
  cache: PassthroughConfig['cache'] = {},
): Promise<Array<Record<string, unknown>>> {
  legacy = await startFakeUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n'))
        if (l.trim() !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
      logged.emit('line');
      done();
    },
  });
  const config = testConfig([legacy.url], {
    logLevel: 'info',
    accessLog,
    passthrough: {
      routes: [{ prefix: '/api', target: legacy.url }],
      timeoutMs: 5000,
      cache,
      ignoreParams: [],
      cacheMaxBodyBytes: 1024 * 1024,
    },
  });
  proxy = await startProxy(config, { logger: pino({ level: 'info' }, sink) });
  expect((await fetch(`${proxy.url}/api/tx/1`)).status).toBe(200);
  return lines;
}

describe('passthrough access log', () => {
  it('writes one line per request with ACCESS_LOG=misses', async () => {
    const lines = await linesFor('misses');
    await untilEmitted(logged, 'line', () => lines.some((l) => l.passthrough === '/api'), 'the access line');
    expect(lines.find((l) => l.passthrough === '/api')).toMatchObject({ msg: 'request', cache: 'BYPASS', status: 200 });
  });

  it('writes one line for an answer of the cached way, not a second one as if streamed', async () => {
    const lines = await linesFor('misses', { '/api': { kind: 'ttl', ms: 60_000 } });
    await untilEmitted(logged, 'line', () => lines.some((l) => l.passthrough === '/api'), 'the access line');
    // A later request's line: any second line of the first request was written before it.
    await fetch(`${proxy!.url}/nowhere`);
    await untilEmitted(logged, 'line', () => lines.some((l) => l.status === 404), 'the 404 line');
    expect(lines.filter((l) => l.passthrough === '/api')).toEqual([
      expect.objectContaining({ msg: 'request', cache: 'MISS', status: 200 }),
    ]);
  });

  it('writes none with ACCESS_LOG=off', async () => {
    const lines = await linesFor('off');
    await fetch(`${proxy!.url}/healthz`);
    expect(lines.filter((l) => l.passthrough !== undefined)).toEqual([]);
  });
});
