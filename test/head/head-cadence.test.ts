/**
 * New heads through the proxy on real sockets: a simulator makes blocks at
 * irregular but learnable intervals; once the cadence has learned them, the
 * proxy's head follows each new block within the target while the probes per
 * block stay bounded (dense only around the expected next block).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { startTestProxy } from '../helpers/proxy.js';
import type { ProxyHandle } from '../../src/app.js';
import { nearestRank } from '../../src/common/nearest-rank.js';

/** Block intervals (ms): 1.5 s ± 200 ms, irregular. */
const INTERVALS = [1300, 1700, 1450, 1600, 1350, 1550, 1650, 1400, 1500, 1700, 1300, 1600, 1450, 1550, 1400, 1650];
const LEARN = 4;
const DENSE_MS = 100;

interface Heads {
  detectionDelayMs: { last: number | null; p90: number | null; samples: number };
  probesPerBlockPerUpstream: number | null;
  mode: string;
}

async function status(base: string): Promise<{ head: number | null; heads: Heads }> {
  const res = await fetch(`${base}/status`);
  const body = (await res.json()) as { data: { chain: { bestHead: number | null }; heads: Heads } };
  return { head: body.data.chain.bestHead, heads: body.data.heads };
}

const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('probe cadence adapted to the block interval', () => {
  let sim: SimulatorHandle;
  let proxy: ProxyHandle;
  beforeAll(async () => {
    sim = await startSimulator({ blockIntervalMs: 0 });
    proxy = await startTestProxy([sim.url], { upstream: { probeIntervalMs: 1000, probeDenseMs: DENSE_MS } });
  });
  afterAll(async () => {
    await proxy.close();
    await sim.close();
  });

  it('follows each new block within 600 ms (p90) at a bounded number of probes per block', async () => {
    const delays: number[] = [];
    let probesAtLearned = 0;
    for (let i = 0; i < INTERVALS.length; i++) {
      // The block schedule of the simulated chain, not a wait for the proxy.
      await tick(INTERVALS[i] ?? 1500);
      const height = sim.chain.advance(1);
      const t0 = performance.now();
      for (;;) {
        const s = await status(proxy.url);
        if (s.head !== null && s.head >= height) break;
        if (performance.now() - t0 > 5000) throw new Error(`head ${height} not seen within 5 s`);
        await tick(5);
      }
      if (i === LEARN - 1) probesAtLearned = sim.stats()['block/max'] ?? 0;
      if (i >= LEARN) delays.push(performance.now() - t0);
    }
    const probes = (sim.stats()['block/max'] ?? 0) - probesAtLearned;
    const perBlock = probes / (INTERVALS.length - LEARN);
    const sorted = [...delays].sort((a, b) => a - b);
    const p90 = nearestRank(sorted, 0.9);
    const s = await status(proxy.url);
    console.log(
      `head detection through the proxy: p50 ${nearestRank(sorted, 0.5).toFixed(0)} ms, p90 ` +
        `${p90.toFixed(0)} ms, max ${sorted[sorted.length - 1]?.toFixed(0)} ms;` +
        ` ${perBlock.toFixed(1)} probes per block (fixed ${DENSE_MS} ms probing: ` +
        `${(1500 / DENSE_MS).toFixed(0)}); status ${JSON.stringify(s.heads)}`,
    );
    expect(p90).toBeLessThanOrEqual(600);
    // Dense only in the window (about 500 ms of a 1.5 s interval) plus the sparse probes.
    expect(perBlock).toBeLessThanOrEqual(10);
    expect(s.heads.detectionDelayMs.samples).toBeGreaterThanOrEqual(INTERVALS.length - 1);
    // The bound of the last block (dense probing by then; the p90 includes the learning blocks).
    expect(s.heads.detectionDelayMs.last).not.toBeNull();
    expect(s.heads.detectionDelayMs.last!).toBeLessThanOrEqual(600);
    expect(s.heads.mode).not.toBe('learning');
    // The same figures in /metrics: one delay sample per new head, every probe counted.
    const text = await (await fetch(`${proxy.url}/metrics`)).text();
    const sample = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    expect(sample('chainproxy_head_detection_delay_seconds_count')).toBe(s.heads.detectionDelayMs.samples);
    expect(sample('chainproxy_head_blocks_total')).toBe(INTERVALS.length);
    expect(sample('chainproxy_head_probes_total')).toBeGreaterThanOrEqual(probes);
  }, 60_000);
});
