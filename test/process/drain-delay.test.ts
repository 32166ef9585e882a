/**
 * DRAIN_DELAY_MS, the lame duck: after SIGTERM /readyz answers 503 while
 * requests and new connections are still served; then the drain proceeds as
 * without it (a second signal ends the lame duck at once). A drain says
 * nothing about the upstream: a probe it cuts is no probe failure.
 * Real processes, real sockets.
 */
import type { ServerResponse } from 'node:http';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { serveFixtures, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { accepts, listening, startProc } from './kit.js';

const fakes: FakeUpstream[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

/** A GET on a connection of its own. */
async function fresh(url: string): Promise<{ status: number; body: string }> {
  const res = await request(url, { reset: true });
  return { status: res.statusCode, body: await res.body.text() };
}

describe('DRAIN_DELAY_MS', { timeout: 120_000 }, () => {
  it('after SIGTERM: /readyz 503 while a new connection is still served; a second SIGTERM drains', async () => {
    const fake = await startFakeUpstream();
    fakes.push(fake);
    // Long enough that only the second signal ends it.
    const p = startProc({ UPSTREAM_URLS: fake.url, DRAIN_DELAY_MS: '600000', INVALIDATION_MODE: 'head' });
    const url = String((await listening(p))['url']);
    await waitFor(async () => (await fresh(`${url}/readyz`)).status === 200, 20_000, 'ready');

    p.child.kill('SIGTERM');
    await waitFor(async () => (await fresh(`${url}/readyz`)).status === 503, 20_000, '/readyz 503');
    expect(p.lines.some((l) => l['msg'] === 'lame duck: /readyz answers 503, requests still served')).toBe(true);
    const served = await fresh(`${url}/block/max`);
    expect(served.status).toBe(200);
    expect((JSON.parse(served.body) as { code: number }).code).toBe(0);
    expect((await fresh(`${url}/healthz`)).status).toBe(200);
    expect(p.child.exitCode).toBeNull();
    expect(p.lines.some((l) => l['msg'] === 'bye')).toBe(false);

    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.lines.some((l) => l['msg'] === 'bye')).toBe(true);
    expect(await accepts(url)).toBe(false);
  });

  it('the lame duck lasts DRAIN_DELAY_MS, then the drain ends the process (exit 0)', async () => {
    const fake = await startFakeUpstream();
    fakes.push(fake);
    const p = startProc({ UPSTREAM_URLS: fake.url, DRAIN_DELAY_MS: '1500', INVALIDATION_MODE: 'head' });
    const url = String((await listening(p))['url']);
    const sent = performance.now();
    p.child.kill('SIGTERM');
    await waitFor(async () => (await fresh(`${url}/readyz`)).status === 503, 20_000, '/readyz 503');
    expect(await p.exited).toBe(0);
    expect(performance.now() - sent).toBeGreaterThanOrEqual(1500);
  });
});

describe('a drain and the upstream probes', { timeout: 120_000 }, () => {
  it('a probe in flight when the drain closes the pool is not reported as an upstream failure', async () => {
    const fixtures = serveFixtures();
    let probes = 0;
    const held: ServerResponse[] = [];
    const fake = await startFakeUpstream((req, res) => {
      // The first probe answers; every later one hangs until the drain cuts it.
      if ((req.url ?? '').startsWith('/block/max') && ++probes > 1) return void held.push(res);
      return fixtures(req, res);
    });
    fakes.push(fake);
    const p = startProc({ UPSTREAM_URLS: fake.url, UPSTREAM_PROBE_INTERVAL_MS: '100', INVALIDATION_MODE: 'head' });
    await listening(p);
    await fake.until(() => held.length > 0, 'a held probe');
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.stderr()).not.toContain('upstream probe');
    expect(p.stderr()).not.toContain('Hint:');
    expect(p.lines.some((l) => l['msg'] === 'upstream probe failed')).toBe(false);
  });
});
