/**
 * The one fake clock of the tests: what the code under test takes as
 * `clock: () => number` (epoch milliseconds), moved by hand. No timers: a
 * test about time advances it instead of waiting for time to pass.
 */
export interface FakeClock {
  now: () => number;
  advance(ms: number): void;
  set(ms: number): void;
}

export function fakeClock(start = 1_700_000_000_000): FakeClock {
  let t = start;
  return {
    now: () => t,
    advance(ms) {
      t += ms;
    },
    set(ms) {
      t = ms;
    },
  };
}
