/**
 * The cluster primary outlives its workers: with WORKERS=2 and an upstream
 * configured (no simulator in the primary to hold its event loop), both
 * workers killed at once are replaced and the port keeps answering; the
 * primary never exits 0 while it should serve. SIGHUP to the primary
 * reaches every worker, and each reloads CONFIG_FILE in place.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { freePort } from '../helpers/redis-server.js';
import { startProc, type Proc } from '../process/kit.js';

type Line = Record<string, unknown>;

function listeningByWorker(p: Proc): Map<number, Line> {
  const out = new Map<number, Line>();
  for (const l of p.lines)
    if (l['msg'] === 'chainproxy listening' && typeof l['worker'] === 'number') out.set(l['worker'], l);
  return out;
}

describe('WORKERS=2: every worker killed', { timeout: 180_000 }, () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 1, blockIntervalMs: 0 });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('both are replaced, the primary keeps serving, and SIGTERM still exits 0', async () => {
    // A fixed port: with PORT=0 the replacements of a cluster with no worker left would bind another one.
    const port = String(await freePort());
    const p = startProc({ WORKERS: '2', PORT: port, UPSTREAM_URLS: sim.url, UPSTREAM_PROBE_INTERVAL_MS: '200' });
    await p.until(() => listeningByWorker(p).size === 2 || p.child.exitCode !== null, 'two workers', 120_000);
    const first = listeningByWorker(p);
    expect(first.size).toBe(2);
    const url = String(first.get(1)!['url']);
    expect(url).toContain(`:${port}`);
    for (const l of first.values()) process.kill(Number(l['pid']), 'SIGKILL');
    await p.until(
      () =>
        p.child.exitCode !== null ||
        [1, 2].every((n) => {
          const now = listeningByWorker(p).get(n);
          return now !== undefined && now['pid'] !== first.get(n)!['pid'];
        }),
      'both workers replaced',
      120_000,
    );
    expect(p.child.exitCode).toBeNull();
    const replaced = p.lines.filter((l) => l['msg'] === 'worker exited; starting a replacement');
    expect(replaced.map((l) => l['worker']).sort()).toEqual([1, 2]);
    const res = await request(`${url}/block/max`, { reset: true });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it('SIGHUP to the primary: every worker reloads CONFIG_FILE, none exits or is replaced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chainproxy-workers-hup-'));
    try {
      const file = join(dir, 'c.yaml');
      writeFileSync(file, 'rateLimit:\n  max: 1000\n');
      const p = startProc({ WORKERS: '2', UPSTREAM_URLS: sim.url, CONFIG_FILE: file });
      await p.until(() => listeningByWorker(p).size === 2 || p.child.exitCode !== null, 'two workers', 120_000);
      writeFileSync(file, 'rateLimit:\n  max: 5\n');
      p.child.kill('SIGHUP');
      const reloaded = (): Line[] => p.lines.filter((l) => l['msg'] === 'configuration reloaded');
      await p.until(() => reloaded().length === 2 || p.child.exitCode !== null, 'both workers reloaded', 20_000);
      expect(
        reloaded()
          .map((l) => l['worker'])
          .sort(),
      ).toEqual([1, 2]);
      expect(reloaded().every((l) => JSON.stringify(l['applied']).includes('RATE_LIMIT_MAX'))).toBe(true);
      expect(p.lines.some((l) => l['msg'] === 'worker exited; starting a replacement')).toBe(false);
      expect(p.child.exitCode).toBeNull();
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('DRAIN_DELAY_MS: SIGTERM to the primary puts every worker in its lame duck; a second one drains', async () => {
    const p = startProc({ WORKERS: '2', UPSTREAM_URLS: sim.url, DRAIN_DELAY_MS: '600000' });
    await p.until(() => listeningByWorker(p).size === 2 || p.child.exitCode !== null, 'two workers', 120_000);
    const url = String(listeningByWorker(p).get(1)!['url']);
    const fresh = async (path: string): Promise<number> => {
      const res = await request(`${url}${path}`, { reset: true });
      await res.body.dump();
      return res.statusCode;
    };
    await waitFor(async () => (await fresh('/readyz')) === 200, 20_000, 'ready');
    p.child.kill('SIGTERM');
    const lameDucks = (): number => p.lines.filter((l) => String(l['msg']).startsWith('lame duck')).length;
    await p.until(() => lameDucks() === 2, 'both workers in their lame duck', 20_000);
    for (let i = 0; i < 4; i++) expect(await fresh('/readyz')).toBe(503);
    for (let i = 0; i < 4; i++) expect(await fresh('/block/max')).toBe(200);
    expect(p.child.exitCode).toBeNull();
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });
});
