/**
 * The package as a user gets it: `npm run build`, `npm pack`, the tarball
 * installed into an empty directory (nothing of the repository beside it),
 * then `npx chainproxy` there without UPSTREAM_URLS serves `/block/max` from
 * the built-in simulator with plain node, and `--help` prints the
 * configuration reference, and the server runs under the heap cap derived
 * from CACHE_MAX_BYTES without operator flags. The tarball holds the compiled code, not the
 * sources or the tests, and tsx is not among what it installs.
 *
 * Also `npm start` in the clone (here because it runs the dist/ this file
 * builds; in another file a parallel build would pull dist/ from under it):
 * SIGTERM sent to the npm process reaches the server, which drains (the
 * request in flight is answered) and is gone (the port closes, npm exits 0).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relativeLinks } from '../docs/links.js';
import { heldFixtures, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { untilAny, untilEmitted } from '../helpers/until.js';
import { accepts } from '../process/kit.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), npm_config_update_notifier: 'false' };

let dir = '';
let app = '';
let tarball = '';

function run(cmd: string, args: string[], cwd: string): string {
  // A build and an install take minutes on a loaded machine: the deadline is not what is tested.
  const r = spawnSync(cmd, args, { cwd, env: ENV, encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) {
    const why = r.error?.message ?? r.signal ?? r.status;
    throw new Error(`${cmd} ${args.join(' ')} failed (${String(why)}):\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chainproxy-pack-'));
  run(NPM, ['run', 'build'], ROOT);
  run(NPM, ['pack', '--pack-destination', dir], ROOT);
  const name = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (name === undefined) throw new Error('npm pack wrote no tarball');
  tarball = join(dir, name);
  app = join(dir, 'app');
  mkdirSync(app);
  run(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], app);
}, 600_000);

let fake: FakeUpstream | null = null;
afterAll(async () => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
  await fake?.close();
});

describe('the packed tarball', () => {
  it('holds the compiled proxy and simulator, the docs and the config, not the sources or tests', () => {
    const files = run('tar', ['tzf', tarball], dir).split('\n').filter(Boolean);
    for (const f of [
      'package/dist/main.js',
      'package/dist/main.js.map',
      'package/dist/bin/chainproxy.js',
      'package/dist/bin/chainproxy-sim.js',
      'package/dist/sim/cli.js',
      'package/README.md',
      'package/docs/api.md',
    ]) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => /^package\/(src|test|bench|scripts)\//.test(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
    expect(existsSync(join(app, 'node_modules', 'tsx'))).toBe(false);
  });

  it('its README and docs link only to files the package holds', () => {
    const files = new Set(run('tar', ['tzf', tarball], dir).split('\n').filter(Boolean));
    const installed = join(app, 'node_modules', 'chainproxy');
    const docs = [...files].filter((f) => /^package\/(README|docs\/[^/]+)\.md$/.test(f));
    expect(docs).toContain('package/docs/operations.md');
    for (const doc of docs) {
      for (const link of relativeLinks(readFileSync(join(installed, doc.slice('package/'.length)), 'utf8'))) {
        if (link.path === '') continue;
        expect(files, `${doc} → ${link.path}`).toContain(normalize(join(dirname(doc), link.path)));
      }
    }
  });

  it('chainproxy --help prints the configuration reference', () => {
    const out = run(NPX, ['--no-install', 'chainproxy', '--help'], app);
    expect(out).toContain('Usage: chainproxy');
    for (const v of [
      'UPSTREAM_URLS',
      'PUBLIC_BASE_URL',
      'REDIS_URL',
      'REQUEST_TIMEOUT_MS',
      'SHUTDOWN_TIMEOUT_MS',
      'CONFIG_FILE',
    ])
      expect(out).toContain(v);
    expect(run(NPX, ['--no-install', 'chainproxy-sim', '--help'], app)).toContain('Usage: chainproxy-sim');
    expect(run(NPX, ['--no-install', 'chainproxy', '--version'], app)).toMatch(/^chainproxy \d+\.\d+\.\d+\n$/);
  });

  it(
    'npx chainproxy without an upstream serves /block/max ' + 'from the built-in simulator, and stops on SIGTERM',
    async () => {
      const child = spawn(NPX, ['--no-install', 'chainproxy'], {
        cwd: app,
        env: {
          ...ENV,
          PORT: '0',
          HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
          SIM_BLOCK_INTERVAL_MS: '1000',
          CACHE_MAX_BYTES: '32MiB',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true, // its own process group: npx and the node process under it stop together
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      try {
        await untilAny(
          [
            [child.stdout, 'data'],
            [child, 'exit'],
          ],
          () => out.includes('"msg":"chainproxy listening"') || child.exitCode !== null,
          'the listening log line',
          30_000,
        );
        const line = out.split('\n').find((l) => l.includes('"msg":"chainproxy listening"'));
        expect(line, `no listening line; stderr:\n${err}`).toBeDefined();
        const listening = JSON.parse(line!) as { url: string; heapLimitMiB: number };
        const url = String(listening.url);
        // The heap cap derived without operator flags: --max-old-space-size=144 (96 + 32 of CACHE_MAX_BYTES + 16 of
        // STREAM_ACTIVITY_WATCH_BYTES), 3 x 16 MiB young.
        expect(listening.heapLimitMiB).toBe(144 + 48);
        const res = await request(`${url}/block/max`);
        expect(res.statusCode).toBe(200);
        expect(await res.body.text()).toMatch(
          /^\{"code":0,"msg":"success","data":\{"height":\d+\.0,"server_timestamp":\d+\}\}$/,
        );
        // The group: npm exec, its shell and the proxy (npm itself ends by the signal, the proxy drains).
        process.kill(-child.pid!, 'SIGTERM');
        await untilEmitted(child.stdout, 'data', () => out.includes('"msg":"bye"'), 'the proxy to drain and say bye');
      } finally {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // the group is gone already
        }
      }
    },
    120_000,
  );
});

describe('npm start', () => {
  it('SIGTERM to the npm process drains the server and stops it', async () => {
    const { handler, release } = heldFixtures('/tx/list?');
    fake = await startFakeUpstream(handler);
    const upstream = fake;
    const child = spawn(NPM, ['start'], {
      cwd: ROOT,
      env: { ...ENV, PORT: '0', HOST: '127.0.0.1', UPSTREAM_URLS: fake.url, UPSTREAM_HEDGE_AFTER_MS: '0' },
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
      await untilAny(
        [
          [child.stdout, 'data'],
          [child, 'exit'],
        ],
        () => logged('chainproxy listening') !== undefined || child.exitCode !== null,
        'the listening log line',
        90_000,
      );
      const line = logged('chainproxy listening');
      expect(line, `stderr:\n${err}`).toBeDefined();
      const url = String(line!['url']);

      const inFlight = request(`${url}/tx/list?page=1&page_size=2`);
      // This exact request (the block reader of precise invalidation asks tx/list too).
      await upstream.until(
        () => upstream.requests.filter((r) => r.url === '/tx/list?page=1&page_size=2').length === 1,
        'the upstream request',
      );
      child.kill('SIGTERM'); // the npm process only
      await untilEmitted(
        child.stdout,
        'data',
        () => logged('shutting down: draining in-flight requests') !== undefined,
        'the server to start draining',
      );
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
