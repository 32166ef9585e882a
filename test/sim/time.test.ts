import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle, type SimulatorOptions } from '../../src/sim/index.js';
import { getJson, get } from './util.js';

const opened: SimulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});
async function open(o: SimulatorOptions): Promise<SimulatorHandle> {
  const s = await startSimulator({ blockIntervalMs: 0, ...o });
  opened.push(s);
  return s;
}

interface Block {
  height: number;
  timestamp: number;
}
const headBlock = async (s: SimulatorHandle): Promise<Block> =>
  (await getJson<{ list: Block[] }>(s.url, '/block/list?page=1&page_size=1')).data.list[0]!;
const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10).replace(/-/g, '');
const stripTime = (t: string): string => t.replace(/"(server_timestamp|currentTimestamp|timeDiff)":\d+/g, '"$1":0');

describe('simulator chain time', () => {
  it('by default the head block is timed at the wall clock, and dates follow it', async () => {
    const before = Date.now();
    const s = await open({});
    const head = await headBlock(s);
    expect(head.height).toBe(s.chain.head());
    expect(head.timestamp * 1000).toBeGreaterThanOrEqual(before - 1000);
    expect(head.timestamp * 1000).toBeLessThanOrEqual(Date.now());
    // The newest complete day of the daily statistics is yesterday (UTC, chain time = now).
    const history = await getJson<{ date: string }[]>(s.url, '/tx/count/history?days=2');
    expect(history.data[0]!.date).toBe(utcDate(head.timestamp * 1000 - 86_400_000));
    // The current NAX stage ends in the future, within one stage (6000 blocks of 15 s).
    const nax = await getJson<{ list: { end_timestamp: string }[] }>(s.url, '/nax/summary');
    const newestEnd = Date.parse(nax.data.list[0]!.end_timestamp + 'Z');
    expect(newestEnd).toBeLessThanOrEqual(head.timestamp * 1000);
    expect(newestEnd).toBeGreaterThan(head.timestamp * 1000 - 2 * 6000 * 15_000);
  });

  it('a produced block is 15 s of chain time later', async () => {
    const s = await open({ startTime: 1_800_000_000_000 });
    expect((await headBlock(s)).timestamp).toBe(1_800_000_000);
    s.chain.advance(4);
    expect((await headBlock(s)).timestamp).toBe(1_800_000_060);
  });

  it('is deterministic for a given seed and start time', async () => {
    const [a, b] = await Promise.all([
      open({ seed: 3, startTime: 1_790_000_123_456, advertisedUrl: 'http://x' }),
      open({ seed: 3, startTime: 1_790_000_123_456, advertisedUrl: 'http://x', now: () => 1 }),
    ]);
    for (const p of [
      '/block/list',
      '/tx/list',
      '/tx/count/history',
      '/address/count/history',
      '/nax/history',
      '/block/detail?h=4841990',
    ]) {
      expect(stripTime((await get(a.url, p)).text), p).toBe(stripTime((await get(b.url, p)).text));
    }
    const c = await open({ seed: 3, startTime: 1_790_086_523_456, advertisedUrl: 'http://x' });
    expect(stripTime((await get(c.url, '/block/list')).text)).not.toBe(
      stripTime((await get(a.url, '/block/list')).text),
    );
  });

  it("startTime 'fixture' keeps the recorded alignment (block 4842132 at 1595158875)", async () => {
    const s = await open({ startTime: 'fixture', startHeight: 4_842_132 });
    expect(await headBlock(s)).toMatchObject({ height: 4_842_132, timestamp: 1_595_158_875 });
  });
});
