/**
 * Refresh-ahead covers what the home page polls that moves with every block
 * but is not a list of the head itself: `chain/summary` and `tx/count/today`
 * are fetched once on a new head (purpose `refresh`), so the next client asking
 * hits the new block's answer instead of missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { startTestProxy } from '../helpers/proxy.js';
import { waitFor } from '../helpers/fake-upstream.js';
import type { ProxyHandle } from '../../src/app.js';
import { bestHead, pathOf, recordingUpstream, type Recorder } from './kit.js';

const STATS = ['/chain/summary', '/tx/count/today'];

describe('refresh-ahead of the statistics that move with the head', () => {
  let sim: SimulatorHandle;
  let rec: Recorder;
  let proxy: ProxyHandle;
  beforeAll(async () => {
    sim = await startSimulator({ blockIntervalMs: 0 });
    rec = await recordingUpstream(sim.url);
    proxy = await startTestProxy([rec.up.url], { upstream: { probeIntervalMs: 100 }, refreshAhead: { maxKeys: 12 } });
    await waitFor(async () => (await bestHead(proxy.url)) === sim.chain.head(), 5000, 'the first head');
  });
  afterAll(async () => {
    await proxy.close();
    await rec.up.close();
    await sim.close();
  });

  it('the next ask after a block is a HIT with the new answer, fetched once by refresh-ahead', async () => {
    for (const p of STATS) for (let i = 0; i < 3; i++) expect((await fetch(`${proxy.url}${p}`)).status).toBe(200);
    await waitFor(() => proxy.resolver.inFlight === 0, 5000, 'no flight under way');
    const from = rec.log.length;
    const height = sim.chain.advance(1);
    await waitFor(async () => (await bestHead(proxy.url)) === height, 5000, `head ${height}`);
    await waitFor(() => STATS.every((p) => rec.log.slice(from).some((e) => pathOf(e.url) === p)), 5000, 'the statistics fetched again');
    await waitFor(() => proxy.resolver.inFlight === 0, 5000, 'no flight under way');
    for (const p of STATS) {
      const r = await fetch(`${proxy.url}${p}`);
      expect(r.headers.get('x-cache'), p).toBe('HIT');
      const truth = (await (await fetch(`${sim.url}${p}`)).json()) as { data: unknown };
      expect(((await r.json()) as { data: unknown }).data, p).toEqual(truth.data);
      expect(rec.log.slice(from).filter((e) => pathOf(e.url) === p).map((e) => e.purpose), p).toEqual(['refresh']);
    }
  });
});
