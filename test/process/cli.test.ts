/**
 * The command line as an operator meets it: --version, flags that are not
 * flags (settings are environment variables), variables that look like a
 * setting but are not one, and the start-up line naming where to look.
 */
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { listening, startProc, withStartupLine } from './kit.js';
import { afterEach } from 'vitest';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
const ACCEPTED = '(accepted: --config FILE, --check, --help, -h, --version, -v)';

const fakes: FakeUpstream[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

// Child processes start slowly on a loaded machine: the deadline is not what is tested.
describe('chainproxy command line', { timeout: 120_000 }, () => {
  it('--version prints the package version and exits 0', async () => {
    const p = startProc({}, { args: ['--version'] });
    expect(await p.exited).toBe(0);
    expect(p.stdout()).toBe(`chainproxy ${VERSION}\n`);
  });

  it('--port 9702 exits 2 listing the accepted flags and saying how to set the port; nothing starts', async () => {
    const p = startProc({}, { args: ['--port', '9702'] });
    expect(await p.exited).toBe(2);
    expect(p.stderr()).toBe(
      `chainproxy: unknown options --port 9702 ${ACCEPTED}\nsettings are environment ` +
        'variables: PORT=9702 chainproxy (see --help)\n(see chainproxy --help)\n',
    );
    expect(p.stdout()).toBe('');
  });

  it('--bogus exits 2 listing the accepted flags', async () => {
    const p = startProc({}, { args: ['--bogus'] });
    expect(await p.exited).toBe(2);
    expect(p.stderr()).toBe(`chainproxy: unknown option --bogus ${ACCEPTED}\n(see chainproxy --help)\n`);
  });

  it(
    'a misspelt setting (UPSTREAM_URL) ' + 'stops start-up with exit 2 naming UPSTREAM_URLS; no simulator is started',
    async () => {
      const p = startProc({ UPSTREAM_URL: 'http://backend:8080' });
      expect(await p.exited).toBe(2);
      expect(p.stderr()).toContain(
        'UPSTREAM_URL: expected a known setting, got an unknown variable that resembles UPSTREAM_URLS',
      );
      expect(p.stdout()).toBe('');
    },
  );

  it(
    'without UPSTREAM_URLS: a warn-level log line and a ' + 'start-up line for humans saying the upstream is simulated',
    async () => {
      const p = startProc({ SIM_BLOCK_INTERVAL_MS: '1000' });
      const line = await listening(p);
      const url = String(line['url']);
      const warn = p.lines.find((l) =>
        String(l['msg']).startsWith('no UPSTREAM_URLS configured: serving the built-in chain simulator'),
      );
      expect(warn?.['level']).toBe(40);
      expect(line['simulated']).toBe(true);
      expect(await withStartupLine(p)).toBe(
        `chainproxy ${VERSION} is serving the API at ${url} (try ${url}/block/max); status ` +
          `page for operators (ADMIN_ALLOW: loopback,uniquelocal) at ${url}/dashboard; upstream: the ` +
          'built-in chain simulator (simulated data; set UPSTREAM_URLS for a real chain)\n',
      );
      expect((await request(`${url}/block/max`)).statusCode).toBe(200);
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    },
  );

  it('with UPSTREAM_URLS the start-up line names the upstream and PUBLIC_BASE_URL', async () => {
    const fake = await startFakeUpstream();
    fakes.push(fake);
    const p = startProc({ UPSTREAM_URLS: fake.url, PUBLIC_BASE_URL: 'https://api.example.com' });
    const line = await listening(p);
    expect(line['simulated']).toBe(false);
    expect(p.lines.some((l) => String(l['msg']).startsWith('no UPSTREAM_URLS'))).toBe(false);
    expect(await withStartupLine(p)).toBe(
      `chainproxy ${VERSION} is serving the API at https://api.example.com (try ` +
        'https://api.example.com/block/max); status page for operators (ADMIN_ALLOW: ' +
        `loopback,uniquelocal) at https://api.example.com/dashboard; upstream: ${fake.url}\n`,
    );
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });
});
