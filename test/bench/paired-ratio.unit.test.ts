/** The pooled ratio of bench (l)'s restarted fleets over their controls, and its bootstrap interval over rounds. */
import { describe, expect, it } from 'vitest';
import { bootstrapInterval, pooledRatio, type PairCounts } from '../../bench/lib/fleet/paired-ratio.js';

const round = (re: number, rb: number, ce: number, cb: number): PairCounts => ({
  restarted: { events: re, base: rb },
  control: { events: ce, base: cb },
});

describe('paired ratio', () => {
  it('pools counts over rounds before dividing (a small round weighs by its answers)', () => {
    // Per round 2.0 and 1.0; pooled (20 + 10) / 2000 over (10 + 10) / 2000 = 1.5, not a mean of ratios.
    expect(pooledRatio([round(20, 1000, 10, 1000), round(10, 1000, 10, 1000)])).toBeCloseTo(1.5, 9);
    expect(pooledRatio([round(40, 2000, 10, 1000)])).toBeCloseTo(2, 9);
    expect(pooledRatio([round(5, 1000, 0, 1000)])).toBeNull();
    expect(pooledRatio([])).toBeNull();
  });

  it('gives an interval around the pooled ratio that narrows as rounds agree, and none from one round', () => {
    const noisy = [
      round(12, 1000, 10, 1000),
      round(8, 1000, 10, 1000),
      round(15, 1000, 10, 1000),
      round(9, 1000, 10, 1000),
    ];
    const same = noisy.map(() => round(11, 1000, 10, 1000));
    const [lo, hi] = bootstrapInterval(noisy)!;
    const pooled = pooledRatio(noisy)!;
    expect(lo).toBeLessThan(pooled);
    expect(hi).toBeGreaterThan(pooled);
    expect(lo).toBeGreaterThanOrEqual(0.8);
    expect(hi).toBeLessThanOrEqual(1.5);
    expect(bootstrapInterval(same)).toEqual([1.1, 1.1].map((v) => expect.closeTo(v, 9)));
    expect(bootstrapInterval(noisy)).toEqual([lo, hi]); // seeded
    expect(bootstrapInterval([round(12, 1000, 10, 1000)])).toBeNull();
  });
});
