/**
 * Open dashboards cost the explorer's backend by blocks, not by tabs: five
 * tabs polling as the explorer's dashboard does (its 5 s and 60 s loops, here
 * scaled down with the block interval) cost the backend at most (blocks in the
 * window + 2) requests per polled path, through passthrough with the recipe's
 * settings, on real sockets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyHandle } from '../../src/app.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { get } from '../helpers/proxy-kit.js';
import { untilHead } from '../helpers/until.js';
import { DASHBOARD_POLL, startExplorerBackend, startExplorerProxy, type ExplorerBackend } from './explorer-kit.js';

const TABS = 5;
const BLOCK_MS = 300;
/** The dashboard's 5 s loop and 60 s loop, against 15 s blocks: scaled to BLOCK_MS. */
const SHORT_MS = BLOCK_MS / 3;
const LONG_MS = BLOCK_MS * 4;
const NASINFO = '/explorer/nasinfo';
const WINDOW_MS = 3000;

let sim: SimulatorHandle;
let backend: ExplorerBackend;
let proxy: ProxyHandle;

beforeAll(async () => {
  sim = await startSimulator({ blockIntervalMs: BLOCK_MS, seed: 36 });
  backend = await startExplorerBackend();
  proxy = await startExplorerProxy(sim.url, backend.url);
  await untilHead(proxy.tracker, (h) => h !== null, 'the first head');
});
afterAll(async () => {
  await proxy?.close();
  await backend?.close();
  await sim?.close();
});

/** One tab: the dashboard's two loops, each request with its own `timestamp=`, until `stop`. */
function tab(stop: { now: boolean }, answers: number[]): Promise<void> {
  const ask = async (path: string): Promise<void> => {
    const r = await get(proxy.url, `${path}${path.includes('?') ? '&' : '?'}timestamp=${Date.now()}`);
    answers.push(r.status);
  };
  const loop = async (paths: readonly string[], everyMs: number): Promise<void> => {
    while (!stop.now) {
      const next = Date.now() + everyMs;
      await Promise.all(paths.map(ask));
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
  };
  return Promise.all([loop(DASHBOARD_POLL, SHORT_MS), loop([NASINFO], LONG_MS)]).then(() => undefined);
}

describe('five dashboard tabs', () => {
  it('cost the backend at most (blocks in the window + 2) requests per polled path', async () => {
    const polled = [...DASHBOARD_POLL, NASINFO];
    const before = new Map(polled.map((p) => [p, backend.countKey(p)]));
    const firstBlock = sim.chain.head();
    const stop = { now: false };
    const answers: number[] = [];
    const tabs = Array.from({ length: TABS }, () => tab(stop, answers));
    // The window measured: the tabs poll for WINDOW_MS.
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    stop.now = true;
    await Promise.all(tabs);
    const blocks = sim.chain.head() - firstBlock;

    expect(answers.every((s) => s === 200)).toBe(true);
    expect(blocks).toBeGreaterThanOrEqual(3);
    const asked = answers.length;
    for (const path of polled) {
      const cost = backend.countKey(path) - before.get(path)!;
      expect(cost, `${path}: ${cost} backend requests for ${blocks} blocks`).toBeLessThanOrEqual(blocks + 2);
      expect(cost, path).toBeGreaterThanOrEqual(1);
    }
    expect(backend.requests.some((r) => r.url.includes('timestamp='))).toBe(false);
    // Every tab asked the short loop's paths at least once per block.
    expect(asked).toBeGreaterThan(TABS * DASHBOARD_POLL.length * blocks);
  });
});
