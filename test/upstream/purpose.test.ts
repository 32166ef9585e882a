/**
 * The proxy's own upstream requests say why they were made
 * (`x-chainproxy-purpose`): head probes `probe`, a block's touched-set reads
 * `block`, the pending pool `pending`, refreshes of hot entries `refresh`; a
 * client's miss carries no such header.
 */
import { describe, expect, it } from 'vitest';
import { startTestProxy } from '../helpers/proxy.js';
import { counter } from '../helpers/replica.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { pathOf, headRig } from '../head/kit.js';
import { untilHead, within } from '../helpers/until.js';
import { PRECISE } from '../invalidation/kit.js';

describe('x-chainproxy-purpose on upstream requests', () => {
  const rig = headRig({
    upstream: { probeIntervalMs: 100 },
    refreshAhead: { maxKeys: 12 },
    invalidation: PRECISE,
  });

  it('names probes, block reads, pending reads and refreshes; a client miss has none', async () => {
    const hot = await fetch(`${rig.proxy.url}/tx/list?page=1&page_size=20`);
    expect(hot.status).toBe(200);
    const miss = await fetch(`${rig.proxy.url}/tx/list?page=2&page_size=7`);
    expect(miss.headers.get('x-cache')).toBe('MISS');
    await within(rig.proxy.resolver.idle(), 'no flight under way', 5000);
    const height = rig.sim.chain.advance(1);
    await untilHead(rig.proxy.tracker, (h) => h === height, `head ${height}`, 5000);
    const purposeOf = (url: string): Array<string | null> =>
      rig.rec.log.filter((e) => e.url === url).map((e) => e.purpose);
    await rig.rec.up.until(
      () => purposeOf('/tx/list?page=1&page_size=20').includes('refresh'),
      'the hot first page refreshed',
    );
    await rig.rec.up.until(
      () => rig.rec.log.some((e) => e.url.startsWith(`/tx/list?block_height=${height}&`)),
      `block ${height} read`,
    );
    await within(rig.proxy.resolver.idle(), 'no flight under way', 5000);

    expect(purposeOf('/tx/list?page=2&page_size=7')).toEqual([null]);
    const probes = rig.rec.log.filter((e) => pathOf(e.url) === '/block/max').map((e) => e.purpose);
    expect(probes.length).toBeGreaterThan(1);
    expect(new Set(probes)).toEqual(new Set(['probe']));
    const blockReads = rig.rec.log
      .filter((e) => e.url.startsWith(`/tx/list?block_height=${height}&`))
      .map((e) => e.purpose);
    expect(new Set(blockReads)).toEqual(new Set(['block']));
    const pending = rig.rec.log.filter((e) => pathOf(e.url) === '/tx/list/pending').map((e) => e.purpose);
    expect(pending.length).toBeGreaterThan(0);
    expect(new Set(pending)).toEqual(new Set(['pending']));
    // The same count on /metrics, by purpose. The metric counts an attempt when
    // it ends and the recorder when it arrives: wait for the ones still under way.
    const metric = (purpose: string): Promise<number> =>
      counter(rig.proxy.url, 'chainproxy_upstream_background_requests_total', { purpose });
    const logged = (purpose: string): number => rig.rec.log.filter((e) => e.purpose === purpose).length;
    await waitFor(async () => (await metric('probe')) >= probes.length, 5000, 'probe attempts counted');
    await waitFor(async () => (await metric('block')) >= logged('block'), 5000, 'block reads counted');
    await waitFor(async () => (await metric('refresh')) >= logged('refresh'), 5000, 'refreshes counted');
    expect(await metric('block')).toBe(logged('block'));
    expect(await metric('refresh')).toBe(logged('refresh'));
  });

  it('names the pending poll between blocks `pending` too', async () => {
    const polled = await startTestProxy([rig.rec.up.url], {
      upstream: { probeIntervalMs: 100 },
      invalidation: { ...PRECISE, pendingPollMs: 50 },
    });
    try {
      await untilHead(polled.tracker, (h) => h === rig.sim.chain.head(), 'the first head', 5000);
      const from = rig.rec.log.length;
      const pool = (): Array<string | null> =>
        rig.rec.log
          .slice(from)
          .filter((e) => pathOf(e.url) === '/tx/list/pending')
          .map((e) => e.purpose);
      await rig.rec.up.until(() => pool().length >= 3, 'three pending polls');
      expect(new Set(pool())).toEqual(new Set(['pending']));
    } finally {
      await polled.close();
    }
  });
});
