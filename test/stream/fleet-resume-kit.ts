/**
 * The fleet-wide resume check, shared by the Redis and Redis Cluster suites
 * (not a test file): a client that streamed from replica A, went away while
 * blocks passed, and comes back through the balancer to replica B (which
 * never streamed) with Last-Event-ID gets the events it missed from B, no
 * `gap`; a resume point older than anything the fleet recorded gets a `gap`
 * for the heights before it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import type { SharedBackend } from '../helpers/fleet-single-flight.js';
import type { ConfigPatch } from '../helpers/proxy.js';
import { startReplica, type Replica } from '../helpers/replica.js';
import { openStream, type SseClient } from './sse-client.js';
import { untilHead } from '../helpers/until.js';

async function waitHead(r: Replica, height: number): Promise<void> {
  await untilHead(r.tracker, (h) => (h ?? -1) >= height, `head ${height}`, 15_000);
}

export function resumeAcrossReplicas(
  start: () => Promise<SharedBackend>,
  redis: NonNullable<ConfigPatch['redis']> = {},
): void {
  let backend: SharedBackend;
  let sim: SimulatorHandle;
  let a: Replica;
  let b: Replica;
  const clients: SseClient[] = [];
  const open = async (url: string, lastEventId?: string): Promise<SseClient> => {
    const c = await openStream(url, lastEventId === undefined ? {} : { lastEventId });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    [backend, sim] = await Promise.all([start(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 5 })]);
    const patch = {
      redisUrl: backend.url,
      upstream: { probeIntervalMs: 100 },
      redis: { keyPrefix: 'resume:', ...redis },
    };
    [a, b] = await Promise.all([startReplica([sim.url], patch), startReplica([sim.url], patch)]);
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([sim?.close(), backend?.stop()]);
  });

  it('a reconnect to another replica replays what it missed; before the history, a gap', async () => {
    const head = sim.chain.head();
    await Promise.all([waitHead(a, head), waitHead(b, head)]);
    // A client on A: its first event is the current head; A streams from then on.
    const first = await open(a.url);
    await first.until(() => first.heights().includes(head), 15_000, 'the current head on A');
    const watcher = await open(a.url, String(head));
    first.close();
    sim.chain.advance(3);
    await watcher.until(() => watcher.heights().includes(head + 3), 15_000, 'three blocks on A');
    await waitHead(b, head + 3);

    // The same client comes back through the balancer to B, which never streamed.
    const back = await open(b.url, String(head));
    await back.until(() => back.heights().includes(head + 3), 15_000, 'the missed blocks from B');
    expect(back.status).toBe(200);
    expect(back.typed('gap')).toEqual([]);
    expect(back.heights()).toEqual([head + 1, head + 2, head + 3]);
    expect(back.events.map((e) => e.id)).toEqual([head + 1, head + 2, head + 3].map(String));

    // From before the first height the fleet recorded: a gap up to it, then the history.
    const old = await open(b.url, String(head - 10));
    await old.until(() => old.heights().includes(head + 3), 15_000, 'the history after the gap');
    expect(old.typed('gap').map((e) => JSON.parse(e.data) as unknown)).toEqual([{ from: head - 9, to: head - 1 }]);
    expect(old.heights()).toEqual([head, head + 1, head + 2, head + 3]);
  });
}
