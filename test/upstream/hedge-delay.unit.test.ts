/** When a hedge goes out: the fixed delay, or the latency quantile once there are samples enough. */
import { describe, expect, it } from 'vitest';
import { hedgeDelay } from '../../src/upstream/hedge.js';
import { LatencyStats } from '../../src/upstream/latency.js';

describe('hedge delay', () => {
  it('is hedgeAfterMs, or the latency quantile floored at hedgeAfterMs once there are enough samples', () => {
    const stats = new LatencyStats();
    expect(hedgeDelay({ hedgeAfterMs: 0, hedgeQuantile: 0.9 }, stats)).toBeNull();
    expect(hedgeDelay({ hedgeAfterMs: 50, hedgeQuantile: 0 }, stats)).toBe(50);
    for (let i = 1; i <= 10; i++) stats.record(i * 100);
    expect(hedgeDelay({ hedgeAfterMs: 50, hedgeQuantile: 0.9 }, stats)).toBe(50); // too few samples
    for (let i = 1; i <= 10; i++) stats.record(i * 100);
    expect(hedgeDelay({ hedgeAfterMs: 50, hedgeQuantile: 0.9 }, stats)).toBe(900);
    expect(hedgeDelay({ hedgeAfterMs: 2000, hedgeQuantile: 0.9 }, stats)).toBe(2000);
  });
});
