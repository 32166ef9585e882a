/**
 * Refresh-ahead covers what the home page polls that moves with every block
 * but is not a list of the head itself: `chain/summary` and `tx/count/today`
 * are fetched once on a new head (purpose `refresh`), so the next client asking
 * hits the new block's answer instead of missing.
 */
import { describe, expect, it } from 'vitest';
import { pathOf, headRig } from '../head/kit.js';
import { untilHead, within } from '../helpers/until.js';

const STATS = ['/chain/summary', '/tx/count/today'];

describe('refresh-ahead of the statistics that move with the head', () => {
  const rig = headRig({ upstream: { probeIntervalMs: 100 }, refreshAhead: { maxKeys: 12 } });

  it('the next ask after a block is a HIT with the new answer, fetched once by refresh-ahead', async () => {
    for (const p of STATS) for (let i = 0; i < 3; i++) expect((await fetch(`${rig.proxy.url}${p}`)).status).toBe(200);
    await within(rig.proxy.resolver.idle(), 'no flight under way', 5000);
    const from = rig.rec.log.length;
    const height = rig.sim.chain.advance(1);
    await untilHead(rig.proxy.tracker, (h) => h === height, `head ${height}`, 5000);
    await rig.rec.up.until(
      () => STATS.every((p) => rig.rec.log.slice(from).some((e) => pathOf(e.url) === p)),
      'the statistics fetched again',
    );
    await within(rig.proxy.resolver.idle(), 'no flight under way', 5000);
    for (const p of STATS) {
      const r = await fetch(`${rig.proxy.url}${p}`);
      expect(r.headers.get('x-cache'), p).toBe('HIT');
      const truth = (await (await fetch(`${rig.sim.url}${p}`)).json()) as { data: unknown };
      expect(((await r.json()) as { data: unknown }).data, p).toEqual(truth.data);
      expect(
        rig.rec.log
          .slice(from)
          .filter((e) => pathOf(e.url) === p)
          .map((e) => e.purpose),
        p,
      ).toEqual(['refresh']);
    }
  });
});
