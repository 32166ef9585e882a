/** A simulator (manual blocks) behind a proxy that probes it often, torn down after each test. */
import { afterEach } from 'vitest';
import { startTestProxy, testConfig, type ConfigPatch } from '../helpers/proxy.js';
import { defaultConfig } from '../../src/config/defaults.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import type { ProxyHandle } from '../../src/app.js';
import type { StreamConfig } from '../../src/config/types.js';
import { openStream, type SseClient } from './sse-client.js';
import { startRelay, type Relay } from './relay.js';
import { waitFor as waitUntil } from '../helpers/fake-upstream.js';
import { untilEmitted } from '../helpers/until.js';

export interface Rig {
  sim: SimulatorHandle;
  proxy: ProxyHandle;
  /** Upstreams relaying to the simulator (only with `relays`). */
  relays: Relay[];
}

export function streamConfig(patch: Partial<StreamConfig> = {}): StreamConfig {
  return { ...testConfig([]).stream, ...patch };
}

export function rig(): {
  start(patch?: ConfigPatch, relays?: number, clock?: () => number): Promise<Rig>;
  stream(base: string, o?: Parameters<typeof openStream>[1]): Promise<SseClient>;
} {
  let sims: SimulatorHandle[] = [];
  let proxies: ProxyHandle[] = [];
  let clients: SseClient[] = [];
  let relayed: Relay[] = [];
  afterEach(async () => {
    for (const c of clients) c.close();
    for (const r of relayed) r.release();
    await Promise.all(proxies.map((p) => p.close()));
    await Promise.all(relayed.map((r) => r.close()));
    await Promise.all(sims.map((s) => s.close()));
    sims = [];
    proxies = [];
    clients = [];
    relayed = [];
  });
  return {
    /** A simulator behind a proxy, directly or through `relays` relaying upstreams; `clock`: the proxy's. */
    async start(patch = {}, relays = 0, clock) {
      const sim = await startSimulator({ blockIntervalMs: 0, seed: 5 });
      sims.push(sim);
      const own = await Promise.all(Array.from({ length: relays }, () => startRelay(sim.url)));
      relayed.push(...own);
      const proxy = await startTestProxy(
        relays === 0 ? [sim.url] : own.map((r) => r.url),
        {
          // The production default (test/helpers/proxy.ts turns refresh-ahead off).
          refreshAhead: defaultConfig().refreshAhead,
          ...patch,
          // The tests leap 100 heights at once, which no real chain does: head trust
          // (test/head, test/quorum) must let such steps through here.
          upstream: { probeIntervalMs: 100, headMarginBlocks: 150, ...patch.upstream },
        },
        clock,
      );
      proxies.push(proxy);
      // The first subscriber starts the events; the first probe gives the first head.
      const first = await openStream(proxy.url);
      await first.until(() => first.events.length === 1, 10_000, 'the first head event');
      first.close();
      await untilHub(proxy, () => proxy.stream.hub.size === 0, 'the first subscriber to leave');
      return { sim, proxy, relays: own };
    },
    async stream(base, o) {
      const c = await openStream(base, o);
      clients.push(c);
      return c;
    },
  };
}

/** Waits for in-process state (HTTP waits use SseClient.until); helpers/fake-upstream.ts's waitFor, `what` first. */
export function waitFor(pred: () => boolean, what: string, ms?: number): Promise<void> {
  return waitUntil(pred, ms, what);
}

/** Resolves when `holds` does, checked as each head event is published (the feed's `emitted`). */
export function untilFeed(
  proxy: Pick<ProxyHandle, 'stream'>,
  holds: (emitted: number | null) => boolean,
  what: string,
): Promise<void> {
  const feed = proxy.stream.feed;
  return untilEmitted(feed, 'emitted', () => holds(feed.emitted), what);
}

/** Resolves when `holds` does, checked as each stream (head or activity) opens or leaves. */
export function untilHub(
  proxy: Pick<ProxyHandle, 'stream'>,
  holds: () => boolean,
  what: string,
  ms?: number,
): Promise<void> {
  return untilEmitted(proxy.stream.hub, 'change', holds, what, ms);
}
