/**
 * The front door as an operator runs it: `src/main.ts` in its own process.
 * Without UPSTREAM_URLS it serves the built-in simulator; a bad setting stops
 * it with exit code 2 naming the variable; SIGTERM lets in-flight requests
 * finish before it exits 0, and a drain always ends at SHUTDOWN_TIMEOUT_MS:
 * requests still running then get the 503 envelope, and the exit code is 0.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { heldFixtures, serveFixtures, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { listening, startProc, type Proc } from './kit.js';

const startMain = (env: Record<string, string>): Proc => startProc(env);
const listeningUrl = async (p: Proc): Promise<string> => String((await listening(p))['url']);

const fakes: FakeUpstream[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

// Child processes start slowly on a loaded machine: the deadline is not what is tested.
describe('npm start (src/main.ts)', { timeout: 120_000 }, () => {
  it('without UPSTREAM_URLS serves the built-in simulator and says so', async () => {
    const p = startMain({ SIM_BLOCK_INTERVAL_MS: '1000' });
    const url = await listeningUrl(p);
    expect(
      p.lines.some((l) =>
        String(l['msg']).startsWith('no UPSTREAM_URLS configured: serving the built-in chain simulator'),
      ),
    ).toBe(true);
    const res = await request(`${url}/block/max`);
    expect(res.statusCode).toBe(200);
    const text = await res.body.text();
    expect(text).toMatch(/^\{"code":0,"msg":"success","data":\{"height":\d+\.0,"server_timestamp":\d+\}\}$/);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it('a bad setting stops it with exit code 2 and a message naming the variable', async () => {
    const p = startMain({ PORT: 'eighty', UPSTREAM_URLS: 'ftp://x' });
    expect(await p.exited).toBe(2);
    expect(p.stderr()).toContain('PORT: expected an integer');
    expect(p.stderr()).toContain('UPSTREAM_URLS: expected');
  });

  it('SIGTERM finishes the request in flight, then exits 0', async () => {
    const { handler, release } = heldFixtures('/tx/list?');
    const fake = await startFakeUpstream(handler);
    fakes.push(fake);
    const p = startMain({ UPSTREAM_URLS: fake.url, UPSTREAM_HEDGE_AFTER_MS: '0' });
    const url = await listeningUrl(p);

    const inFlight = request(`${url}/tx/list?page=1&page_size=2`);
    // This exact request (the block reader of precise invalidation asks tx/list too).
    await fake.until(
      () => fake.requests.filter((r) => r.url === '/tx/list?page=1&page_size=2').length === 1,
      'the upstream request',
    );
    p.child.kill('SIGTERM');
    await p.until(
      () => p.lines.some((l) => String(l['msg']).startsWith('shutting down')),
      'the shutdown log line',
      5000,
    );
    expect(p.child.exitCode).toBeNull(); // still draining
    release();
    const res = await inFlight;
    expect(res.statusCode).toBe(200);
    expect(((await res.body.json()) as { code: number }).code).toBe(0);
    expect(await p.exited).toBe(0);
  });

  it(
    'a request hanging at the upstream past SHUTDOWN_TIMEOUT_MS gets the 503 envelope; ' +
      'exit 0 after about that long',
    async () => {
      const fixtures = serveFixtures();
      const fake = await startFakeUpstream(async (req, res) => {
        if ((req.url ?? '').startsWith('/tx/list?')) return; // never answers
        return fixtures(req, res);
      });
      fakes.push(fake);
      // A request timeout longer than the old fixed 10 s force-exit, and a drain deadline far shorter.
      const p = startMain({
        UPSTREAM_URLS: fake.url,
        UPSTREAM_HEDGE_AFTER_MS: '0',
        REQUEST_TIMEOUT_MS: '60000',
        UPSTREAM_DEADLINE_MS: '60000',
        UPSTREAM_TIMEOUT_MS: '60000',
        SHUTDOWN_TIMEOUT_MS: '1500',
      });
      const url = await listeningUrl(p);

      const inFlight = request(`${url}/tx/list?page=1&page_size=2`);
      // This exact request (the block reader of precise invalidation asks tx/list too).
      await fake.until(
        () => fake.requests.filter((r) => r.url === '/tx/list?page=1&page_size=2').length === 1,
        'the upstream request',
      );
      const signalled = performance.now();
      p.child.kill('SIGTERM');
      const res = await inFlight;
      const answeredMs = performance.now() - signalled;
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toContain('application/json');
      expect(await res.body.json()).toEqual({ code: 5030, msg: 'server is shutting down', data: null });
      expect(await p.exited).toBe(0);
      const exitedMs = performance.now() - signalled;
      // The deadline, not earlier and not the old fixed 10 s (generous upper bound for a loaded machine).
      expect(answeredMs).toBeGreaterThanOrEqual(1400);
      expect(exitedMs).toBeLessThan(6000);
      expect(p.lines.some((l) => String(l['msg']).startsWith('drain deadline reached'))).toBe(true);
    },
  );
});
