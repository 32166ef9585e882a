/**
 * SIGHUP changes the passthrough prefixes live, with a passthrough request
 * and a head stream open: an added prefix is served from its backend (CORS,
 * X-Cache, X-Request-Id, X-Forwarded-For, the cache, its access-log line and
 * metrics label), a removed one answers the 404 envelope of an unknown path,
 * a target path may change; an invalid file keeps the running prefixes. The
 * first prefix may come with a reload, and the timeout and body bound follow
 * it. Real processes, real sockets.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { sendJson, startFakeUpstream } from '../helpers/fake-upstream.js';
import { listening, startProc, type Proc } from '../process/kit.js';
import { openStream } from '../stream/sse-client.js';

let sim: SimulatorHandle;
let dir: string;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 1, blockIntervalMs: 300 });
  dir = mkdtempSync(join(tmpdir(), 'chainproxy-pass-reload-'));
});
afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Line = Record<string, unknown>;

const withMsg = (p: Proc, msg: string): Line[] => p.lines.filter((l) => String(l['msg']).startsWith(msg));

/** Sends SIGHUP and returns the log line of its outcome (`configuration reloaded` or `reload refused…`). */
async function hup(p: Proc, msg = 'configuration reloaded'): Promise<Line> {
  const before = withMsg(p, msg).length;
  p.child.kill('SIGHUP');
  await p.until(() => withMsg(p, msg).length > before || p.child.exitCode !== null, `"${msg}"`);
  expect(p.child.exitCode).toBeNull();
  return withMsg(p, msg).at(-1)!;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

async function ask(url: string, method = 'GET', headers: Record<string, string> = {}): Promise<Answer> {
  const res = await request(url, { method, headers });
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

const from = (name: string) => (req: { url?: string }, res: ServerResponse) =>
  sendJson(res, 200, JSON.stringify({ from: name, url: req.url }));

const file = (name: string, body: string): string => {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
};

const passFile = (routes: string, cache: string, more = ''): string =>
  `passthrough:\n  routes: "${routes}"\n  cache: "${cache}"\n${more}`;

const ORIGIN = { origin: 'https://explorer.example' };
/** A request the cache passes by: the streamed way. */
const STREAMED = { authorization: 'Bearer t' };

describe('SIGHUP changes the passthrough prefixes live', { timeout: 120_000 }, () => {
  it('adds, removes, re-points prefixes with a request and a stream open; an invalid file: no change', async () => {
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const a = await startFakeUpstream(async (req, res) => {
      if (req.url === '/legacy/slow') await held;
      from('a')(req, res);
    });
    const b = await startFakeUpstream(from('b'));
    try {
      const path = file('routes.yaml', passFile(`/legacy=${a.url}`, '/legacy=off'));
      const p = startProc({ UPSTREAM_URLS: sim.url, CONFIG_FILE: path, STREAM_HEARTBEAT_MS: '1000' });
      const url = String((await listening(p))['url']);
      expect((await ask(`${url}/more/x`)).status).toBe(404);
      const unknown = await ask(`${url}/nowhere/x`);
      expect(unknown.status).toBe(404);
      const stream = await openStream(url);
      await stream.until(() => stream.heights().length > 0, 20_000, 'a first head');
      const slow = ask(`${url}/legacy/slow`);
      await a.until(() => a.requests.some((r) => r.url === '/legacy/slow'), 'the held request at a');

      writeFileSync(path, passFile(`/legacy=${a.url},/more=${b.url}`, '/legacy=off,/more=60s'));
      expect((await hup(p))['applied']).toEqual(['PASSTHROUGH', 'PASSTHROUGH_CACHE']);
      expect(withMsg(p, 'reload: changed settings')).toEqual([]);

      // The added prefix: its backend's answer, made the proxy's own, then kept.
      const first = await ask(`${url}/more/x?q=1`, 'GET', ORIGIN);
      expect(first).toMatchObject({ status: 200, body: '{"from":"b","url":"/more/x?q=1"}' });
      expect(first.headers).toMatchObject({ 'x-cache': 'MISS', 'access-control-allow-origin': '*' });
      expect(first.headers['x-request-id']).toBeTruthy();
      expect(b.requests[0]?.headers['x-forwarded-for']).toBe('127.0.0.1');
      const second = await ask(`${url}/more/x?q=1`, 'GET', ORIGIN);
      expect(second).toMatchObject({ status: 200, body: first.body });
      expect(second.headers).toMatchObject({ 'x-cache': 'HIT', 'access-control-allow-origin': '*' });
      expect(b.requests).toHaveLength(1);
      const preflight = await ask(`${url}/more/x`, 'OPTIONS', {
        ...ORIGIN,
        'access-control-request-method': 'GET',
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
      expect((await ask(`${url}/more/x`, 'POST')).status).toBe(405);
      // Logged under its prefix, with its client; counted under its own label.
      const id = first.headers['x-request-id'];
      await p.until(() => p.lines.some((l) => l['reqId'] === id && l['msg'] === 'request'), 'the access line');
      expect(p.lines.find((l) => l['reqId'] === id && l['msg'] === 'request')).toMatchObject({
        passthrough: '/more',
        status: 200,
        client: '127.0.0.1',
      });
      const metrics = (await ask(`${url}/metrics`)).body;
      expect(metrics).toMatch(/^chainproxy_passthrough_cache_total\{route="\/more",result="HIT"\} 1$/m);
      const status = JSON.parse((await ask(`${url}/status`)).body) as { data: { passthrough: Line[] } };
      expect(status.data.passthrough.map((l) => l['prefix'])).toEqual(['/legacy', '/more']);

      // What was open before the reload is still served.
      release();
      expect(await slow).toMatchObject({ status: 200, body: '{"from":"a","url":"/legacy/slow"}' });
      const seen = stream.heights().length;
      await stream.until(() => stream.heights().length > seen, 20_000, 'a head after the reload');
      expect(stream.ended).toBe(false);

      // /legacy removed, /more given a target path: the removed prefix is an unknown path, whatever the method.
      writeFileSync(path, passFile(`/more=${b.url}/v2`, '/more=60s'));
      expect((await hup(p))['applied']).toEqual(['PASSTHROUGH', 'PASSTHROUGH_CACHE']);
      for (const method of ['GET', 'POST', 'OPTIONS']) {
        const gone = await ask(`${url}/legacy/x`, method);
        expect(gone.status, method).toBe(404);
        expect(JSON.parse(gone.body), method).toMatchObject({ code: JSON.parse(unknown.body).code });
      }
      expect(a.requests).toHaveLength(1);
      expect((await ask(`${url}/more/x?q=1`)).headers['x-cache']).toBe('HIT');
      expect(await ask(`${url}/more/y`)).toMatchObject({ status: 200, body: '{"from":"b","url":"/v2/y"}' });

      // An invalid file: refused, the running prefixes kept.
      writeFileSync(path, passFile(`/tx=${a.url},/legacy=${a.url}`, ''));
      const refused = await hup(p, 'reload refused');
      expect(String(refused['errors'])).toContain('/tx');
      expect((await ask(`${url}/legacy/x`)).status).toBe(404);
      expect((await ask(`${url}/more/x?q=1`)).headers['x-cache']).toBe('HIT');
      expect((await ask(`${url}/more/z`)).body).toBe('{"from":"b","url":"/v2/z"}');
      stream.close();
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    } finally {
      release();
      await a.close();
      await b.close();
    }
  });

  it('the first prefix comes with a reload; the timeout and the body bound follow later ones', async () => {
    const slowMs = 1500;
    const backend = await startFakeUpstream(async (req, res) => {
      if (req.url?.startsWith('/old/slow')) await new Promise((r) => setTimeout(r, slowMs));
      if (req.url?.startsWith('/old/big')) return sendJson(res, 200, JSON.stringify({ pad: 'x'.repeat(4000) }));
      from('backend')(req, res);
    });
    try {
      const path = file('first.yaml', 'logLevel: info\n');
      const p = startProc({ UPSTREAM_URLS: sim.url, CONFIG_FILE: path });
      const url = String((await listening(p))['url']);
      expect((await ask(`${url}/old/x`)).status).toBe(404);

      writeFileSync(path, passFile(`/old=${backend.url}`, '/old=60s'));
      expect((await hup(p))['applied']).toEqual(['PASSTHROUGH', 'PASSTHROUGH_CACHE']);
      expect((await ask(`${url}/old/x`)).headers['x-cache']).toBe('MISS');
      expect((await ask(`${url}/old/x`)).headers['x-cache']).toBe('HIT');
      expect((await ask(`${url}/old/big`)).headers['x-cache']).toBe('MISS');
      // The streamed way waits for a slow backend under the default timeout.
      expect((await ask(`${url}/old/slow?a=1`, 'GET', STREAMED)).status).toBe(200);

      const limits = '  timeoutMs: 300\n  cacheMaxBodyBytes: 1000\n';
      writeFileSync(path, passFile(`/old=${backend.url}`, '/old=60s', limits));
      expect((await hup(p))['applied']).toEqual(['PASSTHROUGH_TIMEOUT_MS', 'PASSTHROUGH_CACHE_MAX_BODY_BYTES']);
      // Both ways give up on the slow backend at the new timeout.
      expect((await ask(`${url}/old/slow?a=2`)).status).toBe(504);
      expect((await ask(`${url}/old/slow?a=3`, 'GET', STREAMED)).status).toBe(504);
      // A body over the new bound is streamed, not kept (the one kept before keeps its window).
      expect((await ask(`${url}/old/big?b=1`)).headers['x-cache']).toBe('BYPASS');
      expect((await ask(`${url}/old/big?b=1`)).headers['x-cache']).toBe('BYPASS');
      expect((await ask(`${url}/old/big`)).headers['x-cache']).toBe('HIT');
      expect((await ask(`${url}/metrics`)).body).toMatch(/^chainproxy_passthrough_too_big_total\{route="\/old"\} 1$/m);
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    } finally {
      await backend.close();
    }
  });
});
