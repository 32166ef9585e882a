/**
 * When the probes run (HeadWatch with the real tracker, on a test clock):
 * - the next window is placed from the time the last block was made,
 *   estimated as the middle of the span between the last probe that did not
 *   see it and the first that did, not from the moment it was seen (late by a
 *   varying part of a probe step);
 * - a dense step runs from one probe's start to the next one's, so a slow
 *   upstream answer does not stretch the step the window was planned with.
 * (test/head/head-cadence.test.ts runs the whole cadence on real sockets.)
 */
import { describe, expect, it } from 'vitest';
import { ChainTracker } from '../../src/chain/tracker.js';
import { HeadWatch } from '../../src/upstream/head-watch.js';

/** A regular 1 s chain learned by probes `d` ms either side of each block (blocks at k s, k = 0..10). */
function learned(d: number): { watch: HeadWatch; tracker: ChainTracker; at: (ms: number) => void } {
  let now = 0;
  const tracker = new ChainTracker();
  const watch = new HeadWatch({ tracker, settings: { sparseMs: 1000, denseMs: 100 }, clock: () => now });
  // Block 0, made at 0 ms, seen at d ms.
  now = d;
  tracker.observeHead(100);
  for (let k = 1; k <= 10; k++) {
    now = 1000 * k - d;
    watch.probed('u0', 100 + k - 1);
    now = 1000 * k + d;
    tracker.observeHead(100 + k);
    watch.probed('u0', 100 + k);
  }
  return { watch, tracker, at: (ms) => (now = ms) };
}

describe('probe timing', () => {
  it('places the window from the middle of the span in which the last block was made', () => {
    const { watch } = learned(200);
    const s = watch.status();
    expect(s.blockIntervalMs).toBe(1000);
    expect(s.windowMs).toEqual({ from: 900, to: 1100 });
    expect(s.detectionDelayMs.max).toBe(400);
    // Block 10 was seen at 10 200 ms, made about 10 000 ms: the window opens at 10 900 ms, 700 ms from now (not 900).
    expect(watch.nextDelay()).toBe(700);
    expect(watch.status().mode).toBe('waiting');
  });

  it('runs a dense step from the previous probe start', () => {
    const { watch, at } = learned(10);
    // Inside the window (10 000 + 900 … 1100 ms): the step is 100 ms; the last probe began 60 ms ago.
    at(10_950);
    expect(watch.nextDelay(60)).toBe(40);
    expect(watch.status().mode).toBe('dense');
    expect(watch.nextDelay(150)).toBe(0);
    // Waiting for the window: the delay is to the window's opening, from now, whenever the probe began.
    at(10_300);
    expect(watch.nextDelay(60)).toBe(600);
  });

  it("plans with the fleet's intervals from its first head, its own replacing them as they come", () => {
    let now = 0;
    const tracker = new ChainTracker();
    const watch = new HeadWatch({ tracker, settings: { sparseMs: 1000, denseMs: 100 }, clock: () => now });
    tracker.observeHead(100);
    expect(watch.nextDelay()).toBe(1000);
    expect(watch.status().mode).toBe('learning');
    // The leader learned a 2 s chain.
    watch.seed([2000, 2000, 2000, 2000]);
    expect(watch.status().windowMs).toEqual({ from: 1900, to: 2100 });
    now = 1950;
    watch.nextDelay();
    expect(watch.status().mode).toBe('dense');
    expect(watch.status().blocks).toBe(0);
    // Its own intervals (3 s) replace the fleet's, the oldest first, then alone.
    tracker.observeHead(101);
    expect(watch.intervals()).toEqual([2000, 2000, 2000, 1950]);
    for (let k = 2; k <= 3; k++) {
      now = 1950 + 3000 * (k - 1);
      tracker.observeHead(100 + k);
    }
    expect(watch.intervals()).toEqual([1950, 3000, 3000]);
    expect(watch.status().blockIntervalMs).toBe(3000);
  });

  it('a follower that probed once long ago places the window from the heads it hears, and records no delay', () => {
    // Learned as leader (1 s blocks, probes 10 ms either side), then a follower: heads come from the bus only.
    const { watch, tracker, at } = learned(10);
    const delays = watch.status().detectionDelayMs.samples;
    for (let k = 11; k <= 40; k++) {
      at(1000 * k + 10);
      tracker.observeHead(100 + k);
    }
    // Block 40 heard at 40 010 ms; its last own in-sync probe was at 10 010 ms. Only block 11, heard after that
    // probe and no other head, has a span from it (1000 ms); none after.
    expect(watch.status().detectionDelayMs.samples).toBe(delays + 1);
    expect(watch.status().detectionDelayMs.max).toBe(1000);
    // Taking over the probes now: the next block is expected 900 ms after the one just heard, not overdue (before:
    // the "late" back-off, from a block time estimated half-way back to that old probe).
    expect(watch.nextDelay()).toBe(900);
    expect(watch.status().mode).toBe('waiting');
  });

  it('probes densely over a whole interval after a head it did not see made, until it sees one', () => {
    let now = 0;
    const tracker = new ChainTracker();
    const watch = new HeadWatch({ tracker, settings: { sparseMs: 1000, denseMs: 100 }, clock: () => now });
    // A new replica learns the head (made some time in the last 5 s) and the fleet's 5 s intervals.
    tracker.observeHead(100);
    watch.seed([5000, 5000, 5000, 5000]);
    expect(watch.status().windowMs).toEqual({ from: 4750, to: 5250 });
    // The next block may come now: not a second's wait for a window placed from when the head was learned.
    now = 500;
    expect(watch.nextDelay()).toBe(5250 / 20);
    expect(watch.status().mode).toBe('dense');
    // Seen made: the window is placed from it again.
    now = 3000;
    tracker.observeHead(101);
    now = 3500;
    expect(watch.nextDelay()).toBe(1000);
    expect(watch.status().mode).toBe('waiting');
  });
});
