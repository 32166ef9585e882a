/**
 * Partial failure: a required part failing answers with that part's own error
 * (404 envelope for an unknown block, 502 for an upstream failure); an optional
 * part failing gives 200 with that part null, its error in meta and a short
 * max-age; stale parts are served and marked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { settableClock } from '../helpers/proxy-kit.js';
import { get, metaOf, startPagesEnv, type PagesEnv } from './kit.js';
import { within } from '../helpers/until.js';

let env: PagesEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('required parts', () => {
  it('an unknown block: the block part’s own 404 envelope', async () => {
    env = await startPagesEnv();
    const direct = await get(env.base, '/block/detail?h=99999999');
    const page = await get(env.base, '/pages/block?h=99999999');
    expect(page.status).toBe(404);
    expect(page.text).toBe(direct.text);
    expect(page.header('cache-control')).toBe('no-store');
  });

  it('an upstream failure of a required part: 502 envelope, nothing cached', async () => {
    env = await startPagesEnv();
    env.faults.set('address/info', { status: 500 });
    const addr = 'n1FkntVUMPAsESuCAAPK711omQk19JotBjM';
    const page = await get(env.base, `/pages/address?address=${addr}`);
    expect(page.status).toBe(502);
    expect(page.json).toMatchObject({ code: 5023, data: null });
    env.faults.clear();
    env.mark();
    const again = await get(env.base, `/pages/address?address=${addr}`);
    expect(again.status).toBe(200);
    expect(env.count('address/info')).toBe(1);
  });
  it('a required part deriving from a failed part fails with that part’s error', async () => {
    env = await startPagesEnv();
    // A well-formed contract no token has: token/tx/list answers 404, so the token's name is unknown.
    const page = await get(env.base, '/pages/token?contract=n1FkntVUMPAsESuCAAPK711omQk19JotBjM');
    expect(page.status).toBe(404);
    expect(page.json).toEqual({ code: 404, msg: 'not found', data: null });
    expect(env.count('token/detail')).toBe(0);
  });
});

describe('optional parts', () => {
  it('a failed optional part is null with its error in meta; the page lives 1 s', async () => {
    env = await startPagesEnv();
    env.faults.set('tx/count/history', { status: 500 });
    const page = await get(env.base, '/pages/home');
    expect(page.status).toBe(200);
    const data = (page.json as { data: Record<string, unknown> }).data;
    expect(data['history']).toBeNull();
    expect(data['summary']).not.toBeNull();
    const m = metaOf(page);
    expect(m.parts['history']).toMatchObject({
      request: 'tx/count/history?days=15',
      status: 'error',
      error: { code: 5023, http_status: 502 },
    });
    expect(m.parts['summary']!.status).toBe('ok');
    expect(page.header('cache-control')).toBe('public, max-age=1');
  });

  it(
    'a stale part (stale-while-revalidate) is served at once and marked; ' +
      'the page is kept briefly as STALE with max-age=0',
    async () => {
      const clock = settableClock();
      env = await startPagesEnv({}, clock.now);
      const first = await get(env.base, '/pages/home');
      expect(first.status).toBe(200);
      // Past nax/summary's 60 s but inside its swr window; the head has not moved.
      clock.advance(61_000);
      // The revalidation outlasts the two requests below, even on a loaded machine.
      env.faults.set('nax/summary', { latencyMs: 3000 });
      env.mark();
      const page = await get(env.base, '/pages/home');
      const m = metaOf(page);
      expect(m.parts['nax']).toMatchObject({ cache: 'STALE', stale: 'revalidate', status: 'stale' });
      expect(page.header('x-cache')).toBe('STALE');
      expect(page.header('cache-control')).toBe('public, max-age=0');
      // Kept briefly as it is: a hot page does not recompose on every request while the part revalidates.
      const again = await get(env.base, '/pages/home');
      expect(again.header('x-cache')).toBe('STALE');
      expect(again.header('etag')).toBe(page.header('etag'));
      await within(env!.proxy.resolver.idle(), 'background refreshes done', 5000);
      // The refreshed parts are fresh again: recomposed at once, without waiting out the 250 ms.
      const fresh = await get(env.base, '/pages/home');
      expect(fresh.header('x-cache')).toBe('MISS');
      expect(metaOf(fresh).parts['nax']).toMatchObject({ cache: 'HIT', status: 'ok' });
      expect(env.count('nax/summary')).toBe(1);
    },
  );

  it('stale-if-error: an expired part whose refresh fails is served stale and marked', async () => {
    const clock = settableClock();
    env = await startPagesEnv({}, clock.now);
    await get(env.base, '/pages/home');
    clock.advance(10 * 60_000); // past every swr window of home's parts, inside stale-if-error
    env.faults.set('nax/summary', { status: 500 });
    const page = await get(env.base, '/pages/home');
    expect(page.status).toBe(200);
    expect(metaOf(page).parts['nax']).toMatchObject({ cache: 'STALE', stale: 'error', status: 'stale' });
    expect((page.json as { data: Record<string, unknown> }).data['nax']).not.toBeNull();
  });
});
