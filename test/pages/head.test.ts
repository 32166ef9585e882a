/**
 * Head consistency: the head-relative parts of one answer reflect the one
 * head the page was composed at, also when the head moves during the
 * composition; a new head makes head-relative pages stale like their parts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { settableClock } from '../helpers/proxy-kit.js';
import { get, metaOf, startPagesEnv, type PageMeta, type PagesEnv } from './kit.js';

let env: PagesEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const HEAD_RELATIVE = ['blocks', 'txs', 'pending', 'today', 'summary'];

function expectPinned(m: PageMeta, head: number): void {
  expect(m.head).toBe(head);
  for (const p of HEAD_RELATIVE) {
    expect(m.parts[p]!.head, p).toBe(head);
    expect(m.parts[p]!.behind_head, p).toBeUndefined();
  }
}

describe('head consistency', () => {
  it('a new head makes the home page stale; the recomposed page is pinned to the new head', async () => {
    const clock = settableClock();
    env = await startPagesEnv({}, clock.now);
    const h0 = env.sim.chain.head();
    const first = await get(env.base, '/pages/home');
    expectPinned(metaOf(first), h0);
    expect((await get(env.base, '/pages/home')).header('x-cache')).toBe('HIT');

    env.sim.chain.advance(2);
    await env.probe(); // the upstream's head and the proxy's
    clock.advance(2100); // block/max (1 s, swr 1 s) expired too
    env.mark();
    const page = await get(env.base, '/pages/home');
    expect(page.header('x-cache')).toBe('MISS');
    const m = metaOf(page);
    expectPinned(m, h0 + 2);
    const data = (page.json as { data: { head: { height: number }; blocks: { list: Array<{ height: number }> } } })
      .data;
    expect(data.head.height).toBe(h0 + 2);
    expect(data.blocks.list[0]!.height).toBe(h0 + 2);
    // Parts that do not move with the head were not fetched again.
    expect(env.count('nax/summary')).toBe(0);
    expect(env.count('tx/count/history')).toBe(0);
    expect(page.header('etag')).not.toBe(first.header('etag'));
  });

  it('the head moves while the page is being composed: parts fetched at the older head are fetched again', async () => {
    env = await startPagesEnv();
    const h0 = env.sim.chain.head();
    env.faults.set('tx/list/pending', { latencyMs: 400 });
    const pending = get(env.base, '/pages/home');
    // The other parts are answered at h0; then the chain moves on before the slow part is in.
    await env.until(
      () => env!.seen.filter((s) => s.path === 'block/list' && s.answered !== null).length === 1,
      'block/list answered',
    );
    env.sim.chain.advance(1);
    // Heard from a peer, say: the upstream itself was last probed at h0.
    env.proxy.tracker.observeHead(h0 + 1);
    const page = await pending;
    expect(page.status).toBe(200);
    const m = metaOf(page);
    expect(m.head).toBe(h0 + 1);
    // Parts that show the newest block are known to be at the new head.
    for (const p of ['blocks', 'txs', 'summary']) {
      expect(m.parts[p]!.head, p).toBe(h0 + 1);
    }
    expect(env.count('block/list')).toBe(2);
    const data = (page.json as { data: { blocks: { list: Array<{ height: number }> } } }).data;
    expect(data.blocks.list[0]!.height).toBe(h0 + 1);
    // block/max is still the cached answer of h0 (1 s), and the others were fetched again from an
    // upstream last heard at h0: marked, not hidden.
    for (const p of ['head', 'today', 'pending']) expect(m.parts[p]!.behind_head, p).toBe(true);
  });

  it('a page whose parts do not move with the head stays a hit across a new head', async () => {
    env = await startPagesEnv({
      pages: {
        tokeninfo: {
          params: { token: 'required' },
          parts: {
            detail: { endpoint: 'token/detail', query: { token: '{token}' } },
            holders: { endpoint: 'token/holders', query: { token: '{token}' } },
          },
        },
      },
    });
    await get(env.base, '/pages/tokeninfo?token=NAX');
    env.proxy.tracker.observeHead(env.sim.chain.head() + 5);
    const again = await get(env.base, '/pages/tokeninfo?token=NAX');
    expect(again.header('x-cache')).toBe('HIT');
  });
});
