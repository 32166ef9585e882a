/**
 * Each upstream is probed on its own timer: one hanging upstream delays no
 * other, and a new block is visible within one probe interval while it hangs.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/fake-upstream.js';
import { get, simulatorTrio } from '../helpers/replica.js';
import { untilHead } from '../helpers/until.js';

const trio = simulatorTrio();
const PROBE_MS = 100;

describe('one upstream hangs', () => {
  it('a new block on the others is visible within one probe interval', async () => {
    const { sims, proxy } = await trio.start({
      upstream: { probeIntervalMs: PROBE_MS, attemptTimeoutMs: 4000, totalDeadlineMs: 5000, hedgeAfterMs: 0 },
    });
    const head0 = sims[0]!.chain.head();
    sims[2]!.setFaults({ errorRate: 1, kind: 'hang' });
    // Let the hung upstream's probe start hanging.
    await waitFor(() => proxy.pool.status()[2]!.inFlight > 0, 5000, 'u2 probe hanging');
    for (let round = 1; round <= 3; round++) {
      sims[0]!.chain.advance(1);
      sims[1]!.chain.advance(1);
      const at = performance.now();
      await untilHead(proxy.tracker, (h) => h === head0 + round, `head ${head0 + round} seen`, 5000);
      const ms = performance.now() - at;
      // One probe interval, plus the probe itself and scheduling slack on a loaded machine.
      // without independent timers: the 4 s attempt timeout
      expect(ms, `round ${round}: seen after ${Math.round(ms)} ms`).toBeLessThan(PROBE_MS + 900);
    }
    const r = await get(proxy.url, '/block/max');
    expect(r.status).toBe(200);
    expect(r.head).toBe(head0 + 3);
  });
});
