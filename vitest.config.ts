import { defineConfig } from 'vitest/config';
import LongFirst from './test/helpers/sequencer.js';
import FlakyReporter from './test/helpers/flaky-reporter.js';

/**
 * Two projects. `unit`: pure rules (`*.unit.test.ts`), no socket, no child
 * process (test/helpers/no-io.ts refuses them), fake clocks. `integration`:
 * everything else, on real sockets, real redis-server / prometheus /
 * chromium and child processes, more workers than cores since most of it
 * waits on I/O, one retry per test (a test that needed it is listed at the end). In both, files share their workers (isolate: false): the app
 * is imported once per worker, not once per file, which was a third of the
 * suite's time; each file closes what it opened. The unit project runs
 * first: a broken rule fails in seconds.
 */
const UNIT = 'test/**/*.unit.test.ts';

export default defineConfig({
  test: {
    pool: 'forks',
    // Long files first, also on a fresh clone without vitest's durations (test/helpers/sequencer.ts).
    sequence: { sequencer: LongFirst },
    reporters: ['default', new FlakyReporter()],
    projects: [
      {
        test: {
          name: 'unit',
          include: [UNIT],
          setupFiles: ['test/helpers/no-io.ts'],
          isolate: false,
          maxWorkers: 2,
          testTimeout: 10_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [UNIT],
          // Processes the tests start run src/ compiled once (test/helpers/test-build.ts), not through tsx.
          globalSetup: ['test/helpers/global-build.ts'],
          isolate: false,
          // Deadlines on what no test measures: generous for four workers on two cores.
          testTimeout: 60_000,
          // One retry for a deadline missed under load; a test that needed it is listed
          // at the end of the run (test/helpers/flaky-reporter.ts).
          retry: 1,
          hookTimeout: 60_000,
          maxWorkers: 4,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
