/**
 * SIGHUP drains and exits 0 exactly like SIGTERM, and says so: the
 * configuration is read once, so only a restart applies a new one. The entry
 * point forwards it to the server process.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { heldFixtures, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { accepts, LAUNCHER, listening, startProc } from './kit.js';

const SAYS = 'SIGHUP: draining; restart to apply a new configuration';

const fakes: FakeUpstream[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

describe('SIGHUP', () => {
  it.each([
    ['the entry point (forwarded to the server process)', LAUNCHER],
    ['the server run directly', undefined],
  ])('to %s: logged, the request in flight finishes, exit 0', async (_what, entry) => {
    const { handler, release } = heldFixtures('/tx/list?');
    const fake = await startFakeUpstream(handler);
    fakes.push(fake);
    const p = startProc(
      { UPSTREAM_URLS: fake.url, UPSTREAM_HEDGE_AFTER_MS: '0', INVALIDATION_MODE: 'head' },
      entry === undefined ? {} : { entry },
    );
    const line = await listening(p);
    const url = String(line['url']);
    const inFlight = request(`${url}/tx/list?page=1&page_size=2`);
    // Awaited below; without the fix the process dies and the test fails before that.
    inFlight.catch(() => undefined);
    await waitFor(
      () => fake.requests.some((r) => r.url === '/tx/list?page=1&page_size=2'),
      5000,
      'the upstream request',
    );

    p.child.kill('SIGHUP');
    await waitFor(() => p.lines.some((l) => l['msg'] === SAYS), 5000, 'the SIGHUP log line');
    const said = p.lines.find((l) => l['msg'] === SAYS)!;
    expect(said['pid']).toBe(line['pid']);
    expect(said['level']).toBe(40);
    expect(p.child.exitCode).toBeNull(); // still draining
    release();
    const res = await inFlight;
    expect(res.statusCode).toBe(200);
    expect(((await res.body.json()) as { code: number }).code).toBe(0);
    expect(await p.exited).toBe(0);
    expect(p.child.signalCode).toBeNull();
    expect(p.lines.some((l) => l['msg'] === 'bye' && l['pid'] === line['pid'])).toBe(true);
    expect(await accepts(url)).toBe(false);
  });
});
