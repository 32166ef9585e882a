/** The cadence rule (pure): learning, waiting for the window, dense inside it, backing off when late. */
import { describe, expect, it } from 'vitest';
import { nearestRank } from '../../src/common/nearest-rank.js';
import { expectedWindow, nextProbe, plannedIntervals } from '../../src/upstream/cadence.js';

const S = { sparseMs: 1000, denseMs: 100 };

describe('cadence', () => {
  it('stays at the sparse interval until enough intervals are learned, or when dense probing is off', () => {
    expect(expectedWindow([5000, 5000], 100)).toBeNull();
    expect(nextProbe(10_000, 9_000, null, S)).toEqual({ delayMs: 1000, mode: 'learning' });
    expect(nextProbe(10_000, 9_000, { from: 0, to: 5000 }, { sparseMs: 1000, denseMs: 0 })).toEqual({
      delayMs: 1000,
      mode: 'fixed',
    });
  });

  it(
    'expects the next block between the 5th and 95th percentiles, ' +
      'wider by 5 % of the median (at least one dense step)',
    () => {
      const w = expectedWindow([4000, 5000, 6000, 5000, 4500, 5500, 5000, 5200, 4800, 5100], 100);
      expect(w).toEqual({ from: 3750, to: 6250 });
      expect(nearestRank([1, 2, 3, 4], 0.5)).toBe(2);
      // A regular 15 s chain: the margin is capped at 250 ms.
      expect(expectedWindow([15_000, 15_000, 15_000], 100)).toEqual({ from: 14_750, to: 15_250 });
    },
  );

  it('sleeps until the window opens (at most the sparse interval), probes densely inside, backs off past it', () => {
    const w = { from: 3900, to: 5600 };
    expect(nextProbe(1000, 0, w, S)).toEqual({ delayMs: 1000, mode: 'waiting' });
    expect(nextProbe(3500, 0, w, S)).toEqual({ delayMs: 400, mode: 'waiting' });
    expect(nextProbe(3900, 0, w, S)).toEqual({ delayMs: 100, mode: 'dense' });
    expect(nextProbe(5600, 0, w, S)).toEqual({ delayMs: 100, mode: 'dense' });
    expect(nextProbe(5800, 0, w, S)).toEqual({ delayMs: 100, mode: 'late' });
    expect(nextProbe(7600, 0, w, S)).toEqual({ delayMs: 500, mode: 'late' });
    expect(nextProbe(60_000, 0, w, S)).toEqual({ delayMs: 1000, mode: 'late' });
  });

  it('holds at most 20 dense probes in a wide window (an irregular chain)', () => {
    expect(nextProbe(14_000, 0, { from: 12_000, to: 18_000 }, S)).toEqual({ delayMs: 300, mode: 'dense' });
  });

  it("plans with the fleet's intervals until its own reach the minimum, its own replacing the oldest", () => {
    const fleet = [2000, 2100, 1900, 2000];
    expect(plannedIntervals([], fleet)).toEqual(fleet);
    expect(expectedWindow(plannedIntervals([], fleet), 100)).not.toBeNull();
    expect(plannedIntervals([2050], fleet)).toEqual([2100, 1900, 2000, 2050]);
    expect(plannedIntervals([2050, 2060], fleet)).toEqual([1900, 2000, 2050, 2060]);
    // Learned: only its own.
    expect(plannedIntervals([3000, 3000, 3000], fleet)).toEqual([3000, 3000, 3000]);
    // Too few from the fleet to plan with: its own (still learning).
    expect(plannedIntervals([3000], [2000, 2000])).toEqual([3000]);
    expect(expectedWindow(plannedIntervals([], [2000, 2000]), 100)).toBeNull();
  });
});
