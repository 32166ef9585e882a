/**
 * A client that arrives after the proxy learned a new head, while a fetch of
 * the same head-dependent key begun at the previous head is still in flight,
 * is not handed that fetch's answer (the previous block's): it joins the next
 * fetch (or leads it). The clients that were there before the head moved get
 * the first fetch's answer, as before.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/fake-upstream.js';
import { headRig } from './kit.js';
import { untilHead, within } from '../helpers/until.js';

const LIST = '/block/list?page=1&page_size=5';

async function joins(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const m = /^chainproxy_singleflight_joins_total\{endpoint="block\/list"\} (\S+)$/m.exec(text);
  return Number(m?.[1] ?? 0);
}

const newest = async (r: Response): Promise<number> => {
  const body = (await r.json()) as { data: { list: Array<{ height: number }> } };
  return body.data.list[0]?.height ?? -1;
};

for (const mode of ['head', 'precise'] as const) {
  describe(`joining a flight begun before the head moved (${mode} invalidation)`, () => {
    const rig = headRig({
      upstream: { probeIntervalMs: 50 },
      invalidation: {
        mode,
        maxAgeMs: 60_000,
        listMaxAgeMs: 60_000,
        maxAgeGrowth: 1,
        maxAgeByEndpoint: {},
        readTimeoutMs: 10_000,
        pendingPollMs: 0,
      },
    });
    beforeAll(async () => {
      await within(rig.proxy.resolver.idle(), 'no flight under way', 5000);
    });

    it('the late client gets the new block, the early one the block it asked at', async () => {
      const before = rig.sim.chain.head();
      const held = rig.rec.hold((url) => url === LIST);
      const early = fetch(`${rig.proxy.url}${LIST}`);
      await held.reached;
      const height = rig.sim.chain.advance(1);
      await untilHead(rig.proxy.tracker, (h) => h === height, `head ${height}`, 5000);
      const joined = await joins(rig.proxy.url);
      const late = fetch(`${rig.proxy.url}${LIST}`);
      await waitFor(async () => (await joins(rig.proxy.url)) > joined, 5000, 'the late client joined the flight');
      held.release();
      expect(await newest(await early)).toBe(before);
      expect(await newest(await late)).toBe(height);
    });
  });
}
