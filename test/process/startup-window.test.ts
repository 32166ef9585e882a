/**
 * Start-up answers or refuses, never holds: from the moment PORT is bound
 * until the server is ready, a request gets the 503 envelope (code 5033,
 * Retry-After: 1) and its connection is closed; before the bind it is
 * refused; after, the ready server answers. Connections are opened
 * throughout start-up, over several starts (bench/startup-window.ts does 100).
 * On Node 20 the event loop idles inside that window (module loading) and
 * every start hits it; on 22 and 24 it is busy throughout, so connections wait
 * in the backlog for the ready server (test/startup/early-answer.test.ts holds
 * the window open on every line).
 */
import { describe, expect, it } from 'vitest';
import { portBelowEphemeral, probeThroughout } from '../helpers/startup-probe.js';
import { listening, startProc } from './kit.js';

const STARTS = 3;

describe('requests during start-up', () => {
  it(`are answered 503 with Retry-After or refused, never held (${STARTS} starts)`, async () => {
    let starting = 0;
    for (let i = 0; i < STARTS; i++) {
      const port = await portBelowEphemeral();
      const p = startProc({ PORT: String(port), SIM_BLOCK_INTERVAL_MS: '1000' });
      // Probing goes on a little past the listening line: the hand-over is behind us then.
      const up = listening(p).then(() => new Promise((r) => setTimeout(r, 200)));
      const t = await probeThroughout(port, '/healthz', up, { everyMs: 4, holdMs: 15_000, ready: (s) => s === 200 });
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
      expect(t.unanswered, `start ${i}`).toEqual([]);
      expect(t.wrong, `start ${i}`).toEqual([]);
      expect(t.ready, `start ${i}`).toBeGreaterThan(0);
      starting += t.starting;
    }
    // Where the window is asynchronous, it was hit (the simulator starts in it).
    if (process.versions.node.startsWith('20.')) expect(starting).toBeGreaterThan(0);
  }, 180_000);
});
