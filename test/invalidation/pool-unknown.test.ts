/**
 * Pool failure is fail safe. The pending list is kept by the pending poll
 * while the poll reads the pool; when the poll cannot read it (the
 * forwarder in front of the simulator answers 500), what depends on the pool
 * falls back to its own TTL (1 s for the pending list): refetched past it, or,
 * when every upstream fails, served STALE under stale-if-error with an honest
 * Age and Cache-Control. The proxy's clock is a fake one: the test moves it
 * past the TTL. A poll that fails is counted (guarded, reason pool-unknown).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { PURPOSE_HEADER } from '../../src/upstream/types.js';
import { sendJson, startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { fakeClock } from '../helpers/clock.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';
import { content, covered, invalidationStatus, PRECISE, SEED, truth } from './kit.js';

const LIST = '/tx/list/pending';

let sim: SimulatorHandle | undefined;
let front: FakeUpstream | undefined;
let proxy: Replica | undefined;
afterEach(async () => {
  await proxy?.close();
  await front?.close();
  await sim?.close();
  proxy = front = sim = undefined;
});

type Failing = 'none' | 'poll' | 'all';

async function start(): Promise<{
  sim: SimulatorHandle;
  front: FakeUpstream;
  proxy: Replica;
  clock: ReturnType<typeof fakeClock>;
  fail(what: Failing): void;
}> {
  sim = await startSimulator({ seed: SEED, blockIntervalMs: 0 });
  const s = sim;
  let failing: Failing = 'none';
  front = await startFakeUpstream(async (req, res) => {
    const url = req.url ?? '/';
    if (failing === 'all' || (failing === 'poll' && req.headers[PURPOSE_HEADER] === 'pending'))
      return sendJson(res, 500, '{"code":500,"msg":"internal error","data":null}');
    const r = await fetch(s.url + url);
    sendJson(res, r.status, Buffer.from(await r.arrayBuffer()));
  });
  const clock = fakeClock(Date.now());
  proxy = await startReplica(
    [front.url],
    { upstream: { probeIntervalMs: 50, headMarginBlocks: 100 }, invalidation: { ...PRECISE, pendingPollMs: 20 } },
    clock.now,
  );
  await covered(proxy, s.chain.head());
  await polls(front, 3);
  // The poll's first reads (its baseline) are behind us, at an earlier time than what follows.
  clock.advance(1);
  return { sim: s, front, proxy, clock, fail: (what) => (failing = what) };
}

/** Waits until the poll has asked for the pool `n` more times. */
async function polls(up: FakeUpstream, n: number): Promise<void> {
  await up.arrived(up.count(LIST) + n, LIST, `${n} polls`);
}

async function poolUnknown(url: string): Promise<number> {
  return Number(((await invalidationStatus(url))['guarded'] as Record<string, number>)['pool-unknown']);
}

describe('a pending pool that cannot be read', () => {
  it(
    'every upstream failing: the pending list is served STALE past its own TTL, ' +
      'with an honest Age and Cache-Control',
    async () => {
      const { proxy, clock, fail } = await start();
      const first = await get(proxy.url, LIST);
      expect(first.cache).toBe('MISS');
      clock.advance(2000);
      // Kept by the pool while the poll reads it: a hit past its 1 s TTL.
      expect((await get(proxy.url, LIST)).cache).toBe('HIT');

      const failures = await poolUnknown(proxy.url);
      fail('all');
      await waitFor(async () => (await poolUnknown(proxy.url)) > failures, 5000, 'a failed poll');
      clock.advance(2000);
      const r = await get(proxy.url, LIST);
      expect(r.status).toBe(200);
      expect(r.cache).toBe('STALE');
      expect(r.headers['age']).toBe('4');
      expect(r.headers['cache-control']).toBe('public, max-age=0');
      expect(content(r.text)).toBe(content(first.text));
    },
  );

  it(
    'the poll alone failing: the pending list is refetched past its own TTL; ' +
      'once the pool is read again it is kept by the pool',
    async () => {
      const { sim, front, proxy, clock, fail } = await start();
      expect((await get(proxy.url, LIST)).cache).toBe('MISS');
      const failures = await poolUnknown(proxy.url);
      fail('poll');
      await waitFor(async () => (await poolUnknown(proxy.url)) > failures, 5000, 'a failed poll');
      // Within its own 1 s: still a hit.
      expect((await get(proxy.url, LIST)).cache).toBe('HIT');
      clock.advance(1500);
      const again = await get(proxy.url, LIST);
      expect(again.cache).toBe('MISS');
      expect(content(again.text)).toBe(await truth(sim.url, LIST));

      fail('none');
      // The pool is read again (and once more, settling): what was fetched while it was unknown is stale.
      await polls(front, 3);
      clock.advance(1);
      expect((await get(proxy.url, LIST)).cache).toBe('MISS');
      // Then kept by the pool again, past its own TTL.
      await polls(front, 2);
      clock.advance(5000);
      expect((await get(proxy.url, LIST)).cache).toBe('HIT');
    },
  );
});
