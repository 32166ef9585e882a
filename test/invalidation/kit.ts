/** Simulator + proxy replica for precise invalidation tests, and the proxy's coverage from /status. */
import { afterEach } from 'vitest';
import { startSimulator, type SimulatorHandle, type SimulatorOptions } from '../../src/sim/index.js';
import { EventEmitter } from 'node:events';
import { waitFor } from '../helpers/fake-upstream.js';
import { untilEmitted } from '../helpers/until.js';
import { dataOf, get, startReplica, type Replica } from '../helpers/replica.js';
import type { ConfigPatch } from '../helpers/proxy.js';
import type { InvalidationConfig } from '../../src/config/types.js';

export const SEED = 1;
/** Precise invalidation; a block read's deadline a loaded machine meets (a late read falls back to the head rule). */
export const PRECISE: InvalidationConfig = {
  mode: 'precise',
  maxAgeMs: 60_000,
  listMaxAgeMs: 60_000,
  maxAgeGrowth: 1,
  maxAgeByEndpoint: {},
  readTimeoutMs: 10_000,
  pendingPollMs: 0,
};

/** `simulator`: options of the simulator (a start height near the event a test needs, say). */
export function preciseRig(): {
  start(patch?: ConfigPatch, simulator?: SimulatorOptions): Promise<{ sim: SimulatorHandle; proxy: Replica }>;
} {
  let sim: SimulatorHandle | undefined;
  let proxy: Replica | undefined;
  afterEach(async () => {
    await proxy?.close();
    await sim?.close();
    proxy = undefined;
    sim = undefined;
  });
  return {
    async start(patch = {}, simulator = {}) {
      sim = await startSimulator({ ...simulator, seed: SEED, blockIntervalMs: 0 });
      // Tests leap tens of blocks at once, which no real chain does: head trust must let them through here.
      proxy = await startReplica([sim.url], {
        upstream: { probeIntervalMs: 50, headMarginBlocks: 100 },
        invalidation: PRECISE,
        ...patch,
      });
      return { sim, proxy };
    },
  };
}

export async function invalidationStatus(url: string): Promise<Record<string, unknown>> {
  const s = await get(url, '/status');
  return (dataOf(s.text)['cache'] as Record<string, Record<string, unknown>>)['invalidation']!;
}

/**
 * Waits until the proxy has published the touched set of every block up to
 * `height`: checked as each set is published (a replica), or polled on /status (a URL).
 */
export async function covered(proxy: Replica | string, height: number): Promise<void> {
  const what = `touched sets up to ${height}`;
  if (typeof proxy === 'string') {
    const url = proxy;
    return waitFor(async () => Number((await invalidationStatus(url))['coveredHeight']) >= height, 5000, what);
  }
  const tags = proxy.invalidation?.clock;
  if (tags === undefined) throw new Error('covered: a replica without precise invalidation');
  // Heard after the tag clock (it subscribed first): a set is applied when it is told.
  const published = new EventEmitter();
  const unsubscribe = proxy.touched.subscribe({ block: () => published.emit('block') });
  try {
    await untilEmitted(published, 'block', () => tags.covered >= height, what);
  } finally {
    unsubscribe();
  }
}

/** The content of an answer without its volatile stamps and paging links (the proxy rewrites links). */
export function content(text: string): string {
  const j = JSON.parse(text) as { data?: unknown };
  return JSON.stringify(j.data, (k, v: unknown) =>
    k === 'next' || k === 'previous' || k === 'server_timestamp' || k === 'currentTimestamp' || k === 'timeDiff'
      ? undefined
      : v,
  );
}

/** The simulator's own answer now (the truth at its head). */
export async function truth(simUrl: string, path: string): Promise<string> {
  return content(await (await fetch(simUrl + path)).text());
}
