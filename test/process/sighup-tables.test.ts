/**
 * SIGHUP applies CONFIG_FILE's cache policies and pages live: a new policy
 * governs what is fetched after the reload while stored entries keep their
 * windows; a page added by a reload is served (and documented and counted),
 * a changed one is composed anew, a removed one answers 404, an unchanged
 * one keeps its composed pages. Real processes, real sockets.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { ENDPOINT_NAMES } from '../../src/catalogue/types.js';
import { sendJson, startFakeUpstream, waitFor } from '../helpers/fake-upstream.js';
import { listening, startProc, type Proc } from './kit.js';

let sim: SimulatorHandle;
let dir: string;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 1, blockIntervalMs: 300 });
  dir = mkdtempSync(join(tmpdir(), 'chainproxy-sighup-tables-'));
});
afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Line = Record<string, unknown>;

async function hup(p: Proc): Promise<Line> {
  const done = (): Line[] => p.lines.filter((l) => l['msg'] === 'configuration reloaded');
  const before = done().length;
  p.child.kill('SIGHUP');
  await p.until(() => done().length > before || p.child.exitCode !== null, 'the reload', 20_000);
  expect(p.child.exitCode).toBeNull();
  return done().at(-1)!;
}

async function get(url: string, method: 'GET' | 'POST' = 'GET') {
  const res = await request(url, { method });
  return { status: res.statusCode, cache: res.headers['x-cache'] as string | undefined, body: await res.body.text() };
}

const HASH = (i: number): string => i.toString(16).padStart(64, 'c');

/** Requests `path` until it is answered from the cache. */
async function cached(url: string, path: string): Promise<void> {
  await waitFor(async () => (await get(`${url}${path}`)).cache === 'HIT', 20_000, `${path} cached`);
}

async function described(url: string, path: string): Promise<string> {
  const doc = JSON.parse((await get(`${url}/openapi.json`)).body) as {
    paths: Record<string, { get?: { description?: string } }>;
  };
  return doc.paths[path]?.get?.description ?? '(absent)';
}

describe('SIGHUP applies policies and pages live', { timeout: 120_000 }, () => {
  it('policies: new fetches take the new policy, stored entries keep their windows', async () => {
    const file = join(dir, 'policies.yaml');
    const policies = (neg: number, ttl: number): string =>
      `policies:\n  tx/detail:\n    negativeTtlMs: ${neg}\n    ttlMs: ${ttl}\n`;
    writeFileSync(file, policies(0, 5000));
    const p = startProc({ UPSTREAM_URLS: sim.url, CONFIG_FILE: file });
    const url = String((await listening(p))['url']);
    await cached(url, '/block/detail?h=1');
    // Not-found answers are not kept (negativeTtlMs 0): fetched and not stored.
    const unknown = `${url}/tx/detail?hash=${HASH(1)}`;
    expect((await get(unknown)).cache).toBe('BYPASS');
    expect((await get(unknown)).cache).toBe('BYPASS');
    expect(await described(url, '/tx/detail')).toContain('Cached 5 s');

    writeFileSync(file, policies(600_000, 7000));
    expect((await hup(p))['applied']).toEqual(['policies']);
    expect((await get(`${url}/block/detail?h=1`)).cache).toBe('HIT');
    expect((await get(unknown)).cache).toBe('MISS');
    expect((await get(unknown)).cache).toBe('HIT');
    expect(await described(url, '/tx/detail')).toContain('Cached 7 s');

    // Back to 0: the entry stored under the 10-minute window keeps it; a new unknown hash is not kept.
    writeFileSync(file, policies(0, 5000));
    expect((await hup(p))['applied']).toEqual(['policies']);
    expect((await get(unknown)).cache).toBe('HIT');
    const other = `${url}/tx/detail?hash=${HASH(2)}`;
    expect((await get(other)).cache).toBe('BYPASS');
    expect((await get(other)).cache).toBe('BYPASS');
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it('policies: the readiness rule follows the longest stale-if-error window', async () => {
    const relay = await startFakeUpstream(async (req, res) => {
      const r = await fetch(sim.url + (req.url ?? '/'));
      sendJson(res, r.status, Buffer.from(await r.arrayBuffer()));
    });
    const file = join(dir, 'readiness.yaml');
    writeFileSync(file, 'logLevel: info\n');
    const p = startProc({ UPSTREAM_URLS: relay.url, CONFIG_FILE: file, UPSTREAM_PROBE_INTERVAL_MS: '200' });
    const url = String((await listening(p))['url']);
    await cached(url, '/block/detail?h=1');
    await relay.close();
    // The upstream gone, the cache serves within its stale-if-error window (a day by default): still ready.
    await waitFor(async () => (await get(`${url}/readyz`)).body.includes('"cache"'), 20_000, 'ready by the cache');

    const short = ENDPOINT_NAMES.map((name) => `  ${name}:\n    sieMs: 1000\n`).join('');
    writeFileSync(file, `policies:\n${short}`);
    expect((await hup(p))['applied']).toEqual(['policies']);
    await waitFor(async () => (await get(`${url}/readyz`)).status === 503, 20_000, 'not ready past the new window');
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it('PASSTHROUGH_CACHE and PASSTHROUGH_IGNORE_PARAMS change live; a cached entry stays', async () => {
    let n = 0;
    const backend = await startFakeUpstream((_req, res) => sendJson(res, 200, JSON.stringify({ n: ++n })));
    try {
      const file = join(dir, 'passthrough.yaml');
      const pass = (cache: string, ignore: string): string =>
        `passthrough:\n  cache: "${cache}"\n  ignoreParams: "${ignore}"\n`;
      writeFileSync(file, pass('/legacy=off', ''));
      const p = startProc({ UPSTREAM_URLS: sim.url, CONFIG_FILE: file, PASSTHROUGH: `/legacy=${backend.url}` });
      const url = String((await listening(p))['url']);
      await cached(url, '/block/detail?h=1');
      expect((await get(`${url}/legacy/x?timestamp=1`)).cache).toBe('BYPASS');
      expect((await get(`${url}/legacy/x?timestamp=1`)).cache).toBe('BYPASS');
      expect(backend.requests.map((r) => r.url)).toEqual(['/legacy/x?timestamp=1', '/legacy/x?timestamp=1']);

      writeFileSync(file, pass('/legacy=60s', 'timestamp'));
      expect((await hup(p))['applied']).toEqual(['PASSTHROUGH_CACHE', 'PASSTHROUGH_IGNORE_PARAMS']);
      expect((await get(`${url}/block/detail?h=1`)).cache).toBe('HIT');
      expect((await get(`${url}/legacy/x?timestamp=2`)).cache).toBe('MISS');
      // The parameter is dropped from the forwarded request and from the key.
      expect(backend.requests.at(-1)?.url).toBe('/legacy/x');
      await cached(url, '/legacy/x?timestamp=3');
      expect(backend.requests).toHaveLength(3);

      // Off again: the URL answered from the cache a moment ago goes to the backend.
      writeFileSync(file, pass('/legacy=off', 'timestamp'));
      expect((await hup(p))['applied']).toEqual(['PASSTHROUGH_CACHE']);
      expect((await get(`${url}/legacy/x?timestamp=3`)).cache).toBe('BYPASS');
      expect(backend.requests).toHaveLength(4);
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    } finally {
      await backend.close();
    }
  });

  it('PASSTHROUGH re-points, adds and removes prefixes live; cached entries stay', async () => {
    const answer = (name: string) => (_req: unknown, res: Parameters<typeof sendJson>[0]) =>
      sendJson(res, 200, JSON.stringify({ from: name }));
    const a = await startFakeUpstream(answer('a'));
    const b = await startFakeUpstream(answer('b'));
    try {
      const file = join(dir, 'passthrough-routes.yaml');
      const pass = (routes: string): string =>
        `passthrough:\n  routes: "${routes}"\n  cache: "/legacy=60s${routes.includes('/live=') ? ',/live=off' : ''}"\n`;
      writeFileSync(file, pass(`/legacy=${a.url},/live=${a.url}`));
      const p = startProc({ UPSTREAM_URLS: sim.url, CONFIG_FILE: file });
      const url = String((await listening(p))['url']);
      await cached(url, '/block/detail?h=1');
      await cached(url, '/legacy/kept');
      expect((await get(`${url}/live/x`)).body).toBe('{"from":"a"}');

      writeFileSync(file, pass(`/legacy=${b.url},/live=${b.url}`));
      expect((await hup(p))['applied']).toEqual(['PASSTHROUGH']);
      expect(await get(`${url}/block/detail?h=1`)).toMatchObject({ cache: 'HIT' });
      expect(await get(`${url}/legacy/kept`)).toMatchObject({ cache: 'HIT', body: '{"from":"a"}' });
      // The cached way and the streamed way both go to the new backend.
      expect(await get(`${url}/legacy/new`)).toMatchObject({ cache: 'MISS', body: '{"from":"b"}' });
      expect(await get(`${url}/live/x`)).toMatchObject({ cache: 'BYPASS', body: '{"from":"b"}' });
      expect(b.requests.map((r) => r.url)).toEqual(['/legacy/new', '/live/x']);

      // A new prefix is served at once (test/passthrough/reload.test.ts says more); the running routes kept.
      writeFileSync(file, pass(`/legacy=${a.url},/live=${b.url},/more=${a.url}`));
      expect((await hup(p))['applied']).toEqual(['PASSTHROUGH']);
      expect(p.lines.filter((l) => l['restartNeeded'] !== undefined)).toEqual([]);
      expect(await get(`${url}/more/x`)).toMatchObject({ status: 200, body: '{"from":"a"}' });
      expect(await get(`${url}/legacy/other`)).toMatchObject({ cache: 'MISS', body: '{"from":"a"}' });

      // A removed prefix answers as an unknown path, whatever the method; the others are served as before.
      writeFileSync(file, pass(`/legacy=${b.url}`));
      expect((await hup(p))['applied']).toEqual(['PASSTHROUGH', 'PASSTHROUGH_CACHE']);
      const unknown = await get(`${url}/nowhere/x`);
      expect(unknown.status).toBe(404);
      for (const method of ['GET', 'POST'] as const) {
        const gone = await get(`${url}/live/x`, method);
        expect(gone.status).toBe(404);
        expect(JSON.parse(gone.body)).toMatchObject({ code: JSON.parse(unknown.body).code });
      }
      expect(b.requests).toHaveLength(2);
      // Logged once, as an unknown path (not under the removed prefix).
      const id = (await request(`${url}/live/y`)).headers['x-request-id'];
      const logged = (): Line[] => p.lines.filter((l) => l['reqId'] === id && l['msg'] === 'request');
      await p.until(() => logged().length > 0, 'the access line', 5000);
      await get(`${url}/nowhere/y`);
      expect(logged()).toEqual([expect.objectContaining({ status: 404, endpoint: 'live/y' })]);
      expect(await get(`${url}/legacy/kept`)).toMatchObject({ cache: 'HIT', body: '{"from":"a"}' });
      expect(await get(`${url}/block/detail?h=1`)).toMatchObject({ cache: 'HIT' });
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('pages: added, changed and removed live; an unchanged page keeps its composed pages', async () => {
    const file = join(dir, 'pages.yaml');
    writeFileSync(file, 'logLevel: info\n');
    const p = startProc({ UPSTREAM_URLS: sim.url, CONFIG_FILE: file });
    const url = String((await listening(p))['url']);
    expect((await get(`${url}/pages/blk?h=1`)).status).toBe(404);
    await cached(url, '/pages/block?h=1');

    const page = (name: string, part: string): string =>
      `  ${name}:\n    params: { h: required }\n    parts:\n` +
      `      ${part}: { endpoint: block/detail, query: { h: "{h}" } }\n`;
    writeFileSync(file, `pages:\n${page('blk', 'b')}${page('kept', 'k')}`);
    expect((await hup(p))['applied']).toEqual(['pages']);
    const added = await get(`${url}/pages/blk?h=1`);
    expect(added.status).toBe(200);
    expect(Object.keys((JSON.parse(added.body) as { data: object }).data)).toContain('b');
    await cached(url, '/pages/blk?h=1');
    await cached(url, '/pages/kept?h=1');
    expect((await get(`${url}/pages/block?h=1`)).cache).toBe('HIT');
    expect(await described(url, '/pages/blk')).not.toBe('(absent)');
    expect((await get(`${url}/metrics`)).body).toMatch(/^chainproxy_page_requests_total\{page="blk",/m);

    // blk removed; the built-in block page redefined with one part; kept unchanged.
    writeFileSync(file, `pages:\n${page('block', 'only')}${page('kept', 'k')}`);
    expect((await hup(p))['applied']).toEqual(['pages']);
    expect((await get(`${url}/pages/blk?h=1`)).status).toBe(404);
    expect((await get(`${url}/pages/blk?h=1`, 'POST')).status).toBe(404);
    expect(await described(url, '/pages/blk')).toBe('(absent)');
    const changed = await get(`${url}/pages/block?h=1`);
    expect(changed.cache).toBe('MISS');
    expect(Object.keys((JSON.parse(changed.body) as { data: object }).data)).toEqual(['only']);
    expect((await get(`${url}/pages/kept?h=1`)).cache).toBe('HIT');
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });
});
