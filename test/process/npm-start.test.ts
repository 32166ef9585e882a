/**
 * `npm start` as the deploy recipes run it: SIGTERM sent to the npm process
 * reaches the server, which drains (the request in flight is answered) and
 * is gone (the port closes, npm exits 0). dist/ is built by prestart when stale.
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { heldFixtures, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { accepts, ROOT } from './kit.js';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let fake: FakeUpstream | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

describe('npm start', () => {
  it('SIGTERM to the npm process drains the server and stops it', async () => {
    const { handler, release } = heldFixtures('/tx/list?');
    fake = await startFakeUpstream(handler);
    const child = spawn(NPM, ['start'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), npm_config_update_notifier: 'false', PORT: '0', HOST: '127.0.0.1', UPSTREAM_URLS: fake.url, UPSTREAM_HEDGE_AFTER_MS: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const logged = (msg: string): Record<string, unknown> | undefined =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l['msg'] === msg);
    try {
      await waitFor(() => logged('chainproxy listening') !== undefined || child.exitCode !== null, 90_000, 'the listening log line');
      const line = logged('chainproxy listening');
      expect(line, `stderr:\n${err}`).toBeDefined();
      const url = String(line!['url']);

      const inFlight = request(`${url}/tx/list?page=1&page_size=2`);
      await waitFor(() => fake!.count('/tx/list') === 1, 5000, 'the upstream request');
      child.kill('SIGTERM'); // the npm process only
      await waitFor(() => logged('shutting down: draining in-flight requests') !== undefined, 10_000, 'the server to start draining');
      release();
      const res = await inFlight;
      expect(res.statusCode).toBe(200);
      expect(((await res.body.json()) as { code: number }).code).toBe(0);
      expect(await exited).toBe(0);
      expect(logged('bye')).toBeDefined();
      expect(await accepts(url)).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  }, 150_000);
});
