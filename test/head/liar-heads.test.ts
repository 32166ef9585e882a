/**
 * One of three upstreams reports a head 1000 blocks ahead on every probe and
 * every block/max answer, from the very first probe. The proxy keeps the head
 * the two others agree on, block/max never shows the lie, and the liar, its
 * head refuted by the others, sits out: no requests, a metric, its /status row.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/fake-upstream.js';
import { counter, dataOf, get, startReplica } from '../helpers/replica.js';
import { PRECISE } from '../invalidation/kit.js';
import { perTest } from '../helpers/chain-fake.js';
import { benchOf, fakesAt, HEAD } from '../quorum/kit.js';
import { untilHead } from '../helpers/until.js';

const t = perTest();

/** Both invalidation modes: precise adds the block reader's requests (and the heights they show). */
const MODES = [
  { mode: 'head', patch: {} },
  { mode: 'precise', patch: { invalidation: PRECISE } },
] as const;

describe.each(MODES)('three upstreams, one lying about the head on every probe ($mode invalidation)', ({ patch }) => {
  it('the head stays the honest one, block/max never shows the lie, and the liar sits out', async () => {
    const [a, b, liar] = await fakesAt(t, HEAD, HEAD, HEAD + 1000);
    t.proxy = await startReplica([a.url, b.url, liar.url], {
      upstream: { probeIntervalMs: 50, sitOutMs: 60_000 },
      ...patch,
    });
    const proxy = t.proxy;

    const liarProbes = liar.count('/block/max');
    for (let i = 0; i < 20; i++) {
      const r = await get(proxy.url, '/block/max');
      expect(r.status).toBe(200);
      expect(Number(dataOf(r.text)['height'])).toBe(HEAD);
    }
    await liar.arrived(liarProbes + 10, '/block/max', 'ten more lies told');
    expect(proxy.tracker.bestHead()).toBe(HEAD);

    await waitFor(
      async () =>
        (await counter(proxy.url, 'chainproxy_upstream_sit_outs_total', { upstream: 'u2', reason: 'head' })) >= 1,
      5000,
      'the liar benched',
    );
    expect(await counter(proxy.url, 'chainproxy_upstream_sit_outs_total', { upstream: 'u0' })).toBe(0);
    expect(await counter(proxy.url, 'chainproxy_upstream_sit_outs_total', { upstream: 'u1' })).toBe(0);
    expect((await benchOf(proxy.url, 'u2'))?.reason).toBe('head');
    expect(await benchOf(proxy.url, 'u0')).toBeUndefined();

    // Benched: no client request reaches it (probes go on).
    const before = liar.count() - liar.count('/block/max');
    for (let i = 0; i < 20; i++) expect((await get(proxy.url, `/tx/list?page=${i + 1}&page_size=20`)).status).toBe(200);
    expect(liar.count() - liar.count('/block/max')).toBe(before);
    expect(proxy.tracker.bestHead()).toBe(HEAD);
    expect((await get(proxy.url, '/readyz')).status).toBe(200);
  });

  it('an honest jump reported by two upstreams is believed; the one left behind is not benched', async () => {
    const [a, b, c] = await fakesAt(t, HEAD, HEAD, HEAD);
    t.proxy = await startReplica([a.url, b.url, c.url], { upstream: { probeIntervalMs: 50 }, ...patch });
    a.head.value = HEAD + 500;
    b.head.value = HEAD + 500;
    await untilHead(t.proxy!.tracker, (h) => h === HEAD + 500, 'the jump confirmed', 5000);
    const probes = c.count('/block/max');
    await c.arrived(probes + 25, '/block/max', 'a few windows of probes');
    expect(await counter(t.proxy.url, 'chainproxy_upstream_sit_outs_total')).toBe(0);
  });
});
