/**
 * When the upstream is the built-in simulator, every API answer says so with
 * `X-Chainproxy-Upstream: simulator`: misses, routed and pre-router hits,
 * 304s, pages, batches and every envelope the proxy writes (400, 404, 405,
 * 429). With a real upstream the header is absent. `npm start` without
 * UPSTREAM_URLS (src/main.ts) sets it.
 */
import { built } from '../helpers/test-build.js';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type ProxyHandle } from '../../src/app.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { testConfig } from '../helpers/proxy.js';
import { untilEmitted, untilHead } from '../helpers/until.js';

const HEADER = 'x-chainproxy-upstream';
let sim: SimulatorHandle;
let proxy: ProxyHandle;
let plain: ProxyHandle;

beforeAll(async () => {
  sim = await startSimulator({ seed: 1, blockIntervalMs: 0 });
  const config = testConfig([sim.url], { rateLimit: { enabled: true, max: 40, windowMs: 60_000 } });
  proxy = await startProxy(config, { logger: pino({ level: 'silent' }), upstreamIsSimulator: true });
  plain = await startProxy(testConfig([sim.url]), { logger: pino({ level: 'silent' }) });
  await Promise.all([proxy, plain].map((p) => untilHead(p.tracker, (h) => h !== null, 'first probes', 5000)));
});
afterAll(async () => {
  await proxy?.close();
  await plain?.close();
  await sim?.close();
});

async function marker(
  base: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  const res = await request(`${base}${path}`, {
    method: (init.method ?? 'GET') as 'GET',
    headers: init.headers,
    body: init.body,
  });
  await res.body.arrayBuffer();
  return { status: res.statusCode, cache: res.headers['x-cache'], marker: res.headers[HEADER] };
}

describe('X-Chainproxy-Upstream: simulator', () => {
  it('on answers from the cache and the upstream, fast hits included', async () => {
    const base = proxy.url;
    expect(await marker(base, '/chain/summary')).toMatchObject({ status: 200, cache: 'MISS', marker: 'simulator' });
    expect(await marker(base, '/chain/summary')).toMatchObject({ status: 200, cache: 'HIT', marker: 'simulator' });
    // The third is answered before the router (fast-hit.ts), from the prebuilt header block.
    expect(await marker(base, '/chain/summary')).toMatchObject({ status: 200, cache: 'HIT', marker: 'simulator' });
    expect(await marker(base, '/chain/summary', { method: 'HEAD' })).toMatchObject({
      status: 200,
      marker: 'simulator',
    });
    const etag = (await request(`${base}/chain/summary`)).headers['etag'] as string;
    expect(await marker(base, '/chain/summary', { headers: { 'if-none-match': etag } })).toMatchObject({
      status: 304,
      marker: 'simulator',
    });
    expect(await marker(base, '/pages/home')).toMatchObject({ status: 200, marker: 'simulator' });
    const batch = {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"requests":["block/max"]}',
    };
    expect(await marker(base, '/batch', batch)).toMatchObject({ status: 200, marker: 'simulator' });
  });

  it('on every envelope the proxy writes', async () => {
    const base = proxy.url;
    expect(await marker(base, '/tx/list?page=x')).toMatchObject({ status: 400, marker: 'simulator' });
    expect(await marker(base, '/pages/block?h=x')).toMatchObject({ status: 400, marker: 'simulator' });
    expect(await marker(base, '/no/such')).toMatchObject({ status: 404, marker: 'simulator' });
    expect(await marker(base, '/block/max', { method: 'DELETE' })).toMatchObject({ status: 405, marker: 'simulator' });
    expect(await marker(base, '/block/max', { headers: { 'x-api-key': 'nobody' } })).toMatchObject({
      status: 401,
      marker: 'simulator',
    });
    // Use up the budget: the refusal of a routed and of a pre-router request both carry it.
    let last = { status: 0, cache: undefined as unknown, marker: undefined as unknown };
    for (let i = 0; i < 60 && last.status !== 429; i++) last = await marker(base, '/chain/summary');
    expect(last).toMatchObject({ status: 429, marker: 'simulator' });
    expect(await marker(base, '/tx/list?page=2')).toMatchObject({ status: 429, marker: 'simulator' });
  });

  it('/status says so too (for the status page banner)', async () => {
    const status = async (base: string) =>
      ((await (await request(`${base}/status`)).body.json()) as { data: { upstreamIsSimulator: boolean } }).data;
    expect(await status(proxy.url)).toMatchObject({ upstreamIsSimulator: true });
    expect(await status(plain.url)).toMatchObject({ upstreamIsSimulator: false });
  });

  it('absent in front of a real upstream', async () => {
    for (const path of ['/chain/summary', '/chain/summary', '/chain/summary', '/no/such', '/tx/list?page=x']) {
      expect((await marker(plain.url, path)).marker, path).toBeUndefined();
    }
  });

  // A child process starts slowly on a loaded machine: its deadlines are not what is tested.
  it('set by `npm start` when no UPSTREAM_URLS is configured', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const child = spawn(process.execPath, [built('src/main.ts')], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await untilEmitted(
        child.stdout,
        'data',
        () => out.includes('"chainproxy listening"'),
        'the listening line',
        90_000,
      );
      const line = out.split('\n').find((l) => l.includes('"chainproxy listening"'))!;
      const url = (JSON.parse(line) as { url: string }).url;
      await waitFor(async () => (await marker(url, '/block/max')).status === 200, 20_000, 'an answer');
      expect((await marker(url, '/block/max')).marker).toBe('simulator');
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);
});
