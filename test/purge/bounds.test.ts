/**
 * A flood of purges does not grow a replica's state without bound: the marks
 * stay at PURGE_MAX_MARKS (the oldest folded into "everything before", which
 * purges more, never less), and past the horizon they are dropped. Real
 * sockets, the built-in simulator upstream.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PURGE_MAX_MARKS } from '../../src/purge/build.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { fakeClock } from '../helpers/clock.js';
import { counter, get, limited, startReplica, type Replica } from '../helpers/replica.js';
import { purge, purgeStatus } from './kit.js';

let sim: SimulatorHandle;
let r: Replica;
const clock = fakeClock(Date.now());

beforeAll(async () => {
  sim = await startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 });
  r = await startReplica([sim.url], {}, clock.now);
});
afterAll(async () => {
  await r?.close();
  await sim?.close();
});

it(
  'a flood of distinct purges holds at most PURGE_MAX_MARKS marks; ' + 'what the folded ones purged stays purged',
  async () => {
    const untouched = '/token/detail?token=ATP';
    await get(r.url, untouched);
    expect((await get(r.url, untouched)).cache).toBe('HIT');
    clock.advance(1);
    const flood = PURGE_MAX_MARKS + 500;
    const statuses = await limited(flood, 16, async (i) => (await purge(r.url, `tag=height:${i}`)).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const s = await purgeStatus(r.url);
    expect(s.marks).toBe(PURGE_MAX_MARKS);
    expect(await counter(r.url, 'chainproxy_purge_marks')).toBe(PURGE_MAX_MARKS);
    expect(s.here).toBe(flood);
    // No purge named it, but it was made before marks that were folded into "everything before".
    clock.advance(1);
    expect((await get(r.url, untouched)).cache).toBe('MISS');
    // What is made after the flood is kept.
    clock.advance(1);
    expect((await get(r.url, untouched)).cache).toBe('HIT');
  },
);

it('marks past the horizon (the longest life of an entry) are dropped at the next purge', async () => {
  expect((await purgeStatus(r.url)).marks).toBeGreaterThan(1);
  clock.advance(30 * 24 * 3600_000);
  expect((await purge(r.url, 'tag=token:NAX')).status).toBe(200);
  expect((await purgeStatus(r.url)).marks).toBe(1);
});
