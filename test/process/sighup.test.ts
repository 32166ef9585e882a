/**
 * SIGHUP reloads CONFIG_FILE in place: a live setting (the rate limit)
 * changes while the cache and an open /stream/heads stream survive; an
 * invalid file keeps the running configuration and logs every problem; a
 * restart-only change is named in a warning. Through the entry point (which
 * forwards the signal to the server process) and on the server run directly.
 * Real processes, real sockets.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { sendJson, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { openStream } from '../stream/sse-client.js';
import { LAUNCHER, listening, startProc, type Proc } from './kit.js';

let sim: SimulatorHandle;
let dir: string;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 1, blockIntervalMs: 300 });
  dir = mkdtempSync(join(tmpdir(), 'chainproxy-sighup-'));
});
afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Line = Record<string, unknown>;

function linesWith(p: Proc, msg: string): Line[] {
  return p.lines.filter((l) => typeof l['msg'] === 'string' && (l['msg'] as string).startsWith(msg));
}

async function hup(p: Proc, msg: string): Promise<Line> {
  const before = linesWith(p, msg).length;
  p.child.kill('SIGHUP');
  await p.until(() => linesWith(p, msg).length > before || p.child.exitCode !== null, `"${msg}"`, 20_000);
  expect(p.child.exitCode).toBeNull();
  return linesWith(p, msg).at(-1)!;
}

async function get(url: string): Promise<{ status: number; cache: string | undefined; body: string }> {
  const res = await request(url);
  return { status: res.statusCode, cache: res.headers['x-cache'] as string | undefined, body: await res.body.text() };
}

async function statusReload(url: string): Promise<Record<string, unknown> | null> {
  const s = JSON.parse((await get(`${url}/status`)).body) as { data: { reload: Record<string, unknown> | null } };
  return s.data.reload;
}

describe('SIGHUP reloads CONFIG_FILE', { timeout: 120_000 }, () => {
  it.each([
    ['the entry point (forwarded to the server process)', LAUNCHER],
    ['the server run directly', undefined],
  ])('to %s: a live setting changes; the cache and an open stream survive', async (_what, entry) => {
    const file = join(dir, `live-${entry === undefined ? 'direct' : 'launcher'}.yaml`);
    writeFileSync(file, 'rateLimit:\n  max: 1000\n');
    const p = startProc(
      { UPSTREAM_URLS: sim.url, CONFIG_FILE: file, STREAM_HEARTBEAT_MS: '1000' },
      entry === undefined ? {} : { entry },
    );
    const line = await listening(p);
    const url = String(line['url']);
    const cached = `${url}/block/detail?h=1`;
    expect((await get(cached)).status).toBe(200);
    await waitFor(async () => (await get(cached)).cache === 'HIT', 20_000, 'a cached entry');
    const stream = await openStream(url);
    expect(stream.status).toBe(200);
    await stream.until(() => stream.heights().length > 0, 20_000, 'a first head');

    writeFileSync(file, 'rateLimit:\n  max: 2\n');
    const reloaded = await hup(p, 'configuration reloaded');
    expect(reloaded['pid']).toBe(line['pid']);
    expect(reloaded['applied']).toEqual(['RATE_LIMIT_MAX', 'RATE_LIMIT_MISS_BUDGET']);
    expect(linesWith(p, 'reload: changed settings')).toEqual([]);

    // The cache kept its entry; the stream stays open and keeps receiving heads.
    expect((await get(cached)).cache).toBe('HIT');
    const seen = stream.heights().length;
    await stream.until(() => stream.heights().length > seen, 20_000, 'a head after the reload');
    expect(stream.ended).toBe(false);
    // The new limit: 2 per minute (the share of the old budget left: nearly all of it).
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(`${url}/block/max`)).status);
    expect(statuses).toContain(429);
    const reload = await statusReload(url);
    expect(reload).toMatchObject({ result: 'applied', applied: ['RATE_LIMIT_MAX', 'RATE_LIMIT_MISS_BUDGET'] });
    const metrics = (await get(`${url}/metrics`)).body;
    expect(metrics).toMatch(/^chainproxy_config_reloads_total\{result="applied"\} 1$/m);
    stream.close();
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it('an invalid file: every problem logged, the running configuration kept', async () => {
    const file = join(dir, 'invalid.yaml');
    writeFileSync(file, 'rateLimit:\n  max: 3\n');
    const p = startProc({ UPSTREAM_URLS: sim.url, CONFIG_FILE: file });
    const url = String((await listening(p))['url']);

    writeFileSync(file, 'rateLimit:\n  max: -5\nport: eighty\nupstreamUrl: http://x\n');
    const refused = await hup(p, 'reload refused');
    expect(refused['level']).toBe(50);
    const errors = refused['errors'] as string[];
    expect(errors).toHaveLength(3);
    expect(errors.some((e) => e.startsWith('rateLimit.max (in '))).toBe(true);
    expect(errors.some((e) => e.startsWith('port (in '))).toBe(true);
    expect(errors.some((e) => e.includes('rename it to upstreamUrls'))).toBe(true);
    expect(linesWith(p, 'configuration reloaded')).toEqual([]);
    // Still the running limit of 3: the fourth request in the window is refused.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(`${url}/block/max`)).status);
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses[3]).toBe(429);
    expect(await statusReload(url)).toMatchObject({ result: 'invalid', errors });
    expect((await get(`${url}/metrics`)).body).toMatch(/^chainproxy_config_reloads_total\{result="invalid"\} 1$/m);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it('a restart-only change is named in a warning and keeps its running value', async () => {
    const file = join(dir, 'restart.yaml');
    writeFileSync(file, 'logLevel: info\n');
    const p = startProc({ UPSTREAM_URLS: sim.url, CONFIG_FILE: file });
    const url = String((await listening(p))['url']);

    writeFileSync(file, 'logLevel: info\nstream:\n  maxStreams: 3\nlimits:\n  maxPageSize: 20\n');
    const warned = await hup(p, 'reload: changed settings that apply only after a restart');
    expect(warned['level']).toBe(40);
    expect(warned['restartNeeded']).toEqual(['MAX_PAGE_SIZE', 'MAX_STREAMS']);
    expect(String(warned['msg'])).toContain('MAX_PAGE_SIZE, MAX_STREAMS');
    // MAX_PAGE_SIZE still 100 here.
    expect((await get(`${url}/tx/list?page=1&page_size=50`)).status).toBe(200);
    expect(await statusReload(url)).toMatchObject({
      result: 'applied',
      restartNeeded: ['MAX_PAGE_SIZE', 'MAX_STREAMS'],
    });
    expect((await get(`${url}/metrics`)).body).toMatch(/^chainproxy_config_restart_pending 1$/m);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it('ADMIN_ALLOW changes live: the operator routes close to an address no longer allowed', async () => {
    const file = join(dir, 'admin.yaml');
    writeFileSync(file, 'adminAllow: [loopback]\n');
    const p = startProc({ UPSTREAM_URLS: sim.url, CONFIG_FILE: file });
    const url = String((await listening(p))['url']);
    expect((await get(`${url}/status`)).status).toBe(200);
    writeFileSync(file, 'adminAllow: [10.1.2.3]\n');
    expect((await hup(p, 'configuration reloaded'))['applied']).toEqual(['ADMIN_ALLOW']);
    expect((await get(`${url}/status`)).status).toBe(404);
    expect((await get(`${url}/metrics`)).status).toBe(404);
    expect((await get(`${url}/block/max`)).status).toBe(200);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it('UPSTREAM_URLS changes live: requests and probes go to the new upstream, the cache stays', async () => {
    const relay = (): Promise<FakeUpstream> =>
      startFakeUpstream(async (req, res) => {
        const r = await fetch(sim.url + (req.url ?? '/'));
        sendJson(res, r.status, Buffer.from(await r.arrayBuffer()));
      });
    const [a, b] = [await relay(), await relay()];
    try {
      const file = join(dir, 'upstream.yaml');
      writeFileSync(file, `upstreamUrls: [${a.url}]\n`);
      const p = startProc({ CONFIG_FILE: file, INVALIDATION_MODE: 'head' });
      const url = String((await listening(p))['url']);
      const cached = `${url}/block/detail?h=2`;
      expect((await get(cached)).status).toBe(200);
      await waitFor(async () => (await get(cached)).cache === 'HIT', 20_000, 'a cached entry');

      writeFileSync(file, `upstreamUrls: [${b.url}]\n`);
      expect((await hup(p, 'configuration reloaded'))['applied']).toEqual(['UPSTREAM_URLS']);
      // Logged as the reload is applied, after 'configuration reloaded' (perhaps in a later chunk of output).
      const replaced = 'reload: upstreams replaced under the same names';
      await p.until(() => linesWith(p, replaced).length > 0, `"${replaced}"`);
      expect(linesWith(p, replaced).at(-1)?.['upstreams']).toEqual(['u0']);
      expect((await get(cached)).cache).toBe('HIT');
      const before = a.requests.length;
      expect((await get(`${url}/block/detail?h=3`)).status).toBe(200);
      expect(b.requests.some((r) => r.url === '/block/detail?h=3')).toBe(true);
      expect(a.requests.slice(before).some((r) => r.url === '/block/detail?h=3')).toBe(false);
      await b.until(() => b.requests.some((r) => r.url.startsWith('/block/max')), 'a probe of the new one');
      const status = JSON.parse((await get(`${url}/status`)).body) as { data: { upstreams: Array<{ url: string }> } };
      expect(status.data.upstreams.map((u) => u.url)).toEqual([b.url]);
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('LOG_LEVEL changes live; the reload line itself is written at the old level', async () => {
    const file = join(dir, 'level.yaml');
    writeFileSync(file, 'logLevel: info\n');
    // LOG_LEVEL unset (empty): the file's level holds.
    const p = startProc({ UPSTREAM_URLS: sim.url, CONFIG_FILE: file, ACCESS_LOG: 'all', LOG_LEVEL: '' });
    const url = String((await listening(p))['url']);
    const access = (): number => p.lines.filter((l) => l['level'] === 30 && typeof l['reqId'] === 'string').length;
    expect((await get(`${url}/block/max`)).status).toBe(200);
    await p.until(() => access() > 0, 'an access-log line at info', 20_000);
    writeFileSync(file, 'logLevel: warn\n');
    expect((await hup(p, 'configuration reloaded'))['applied']).toEqual(['LOG_LEVEL']);
    const before = access();
    for (let i = 0; i < 3; i++) expect((await get(`${url}/block/max`)).status).toBe(200);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(access()).toBe(before);
  });
});
