/**
 * When the probes run and what they teach the cadence:
 * - the time a block was made is taken as the middle of the span between the
 *   last probe that did not see it and the first that did (not the moment it
 *   was seen, late by a varying part of a probe step), so the learned interval
 *   and the expected window follow the chain, not the probe phase;
 * - the probe interval runs from one probe's start to the next one's, so a
 *   slow upstream answer does not stretch the step (real sockets).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainTracker } from '../../src/chain/tracker.js';
import { HeadWatch } from '../../src/upstream/head-watch.js';
import { quantile } from '../../src/upstream/cadence.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { startTestProxy } from '../helpers/proxy.js';
import { waitFor } from '../helpers/fake-upstream.js';
import type { ProxyHandle } from '../../src/app.js';
import { pathOf, recordingUpstream, type Recorder } from './kit.js';

describe('block times estimated mid-span', () => {
  it('learns a regular 1 s chain as 1 s, whatever the phase of the probes that saw each block', () => {
    let now = 0;
    const tracker = new ChainTracker();
    const watch = new HeadWatch({ tracker, settings: { sparseMs: 1000, denseMs: 100 }, clock: () => now });
    tracker.observeHead(100);
    for (let k = 1; k <= 10; k++) {
      // Block k is made at k s; the probes bracketing it are 10 ms or 200 ms either side, by turns.
      const d = k % 2 === 0 ? 10 : 200;
      now = 1000 * k - d;
      watch.probed('u0', 100 + k - 1);
      now = 1000 * k + d;
      tracker.observeHead(100 + k);
      watch.probed('u0', 100 + k);
    }
    const s = watch.status();
    expect(s.blockIntervalMs).toBe(1000);
    // 1 s ± the margin (one dense step): seen times alone would give 810 / 1190 ms intervals and a window of 710 … 1290 ms.
    expect(s.windowMs).toEqual({ from: 900, to: 1100 });
    expect(s.detectionDelayMs.max).toBe(400);
  });
});

describe('probe steps from start to start', () => {
  const INTERVAL = 300;
  const SLOW = 250;
  let sim: SimulatorHandle;
  let rec: Recorder;
  let proxy: ProxyHandle;
  beforeAll(async () => {
    sim = await startSimulator({ blockIntervalMs: 0 });
    rec = await recordingUpstream(sim.url);
    rec.delay((url) => pathOf(url) === '/block/max', SLOW);
    proxy = await startTestProxy([rec.up.url], { upstream: { probeIntervalMs: INTERVAL } });
  });
  afterAll(async () => {
    await proxy.close();
    await rec.up.close();
    await sim.close();
  });

  it(`probes every ${INTERVAL} ms even when each answer takes ${SLOW} ms`, async () => {
    const probes = (): number[] => rec.log.filter((e) => pathOf(e.url) === '/block/max').map((e) => e.at);
    await waitFor(() => probes().length >= 9, 10_000, 'nine probes');
    const at = probes();
    const gaps = at.slice(1).map((t, i) => t - (at[i] ?? t));
    const median = quantile([...gaps].sort((a, b) => a - b), 0.5);
    console.log(`probe gaps (ms): ${gaps.map((g) => g.toFixed(0)).join(' ')}`);
    // From the end of each answer it would be INTERVAL + SLOW = 550 ms.
    expect(median).toBeGreaterThanOrEqual(INTERVAL - 20);
    expect(median).toBeLessThan(INTERVAL + SLOW / 2);
  });
});
