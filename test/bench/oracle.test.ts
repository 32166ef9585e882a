/**
 * The oracle of bench (o) on real sockets: two lockstep simulators, a real proxy, the workload
 * driver. It must see a planted stale answer and none when the proxy is bypassed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { blockNames } from '../../src/sim/index.js';
import type { ProxyHandle } from '../../src/app.js';
import { drive } from '../../bench/lib/oracle/driver.js';
import { startLockstep, type Lockstep } from '../../bench/lib/oracle/lockstep.js';
import { startRecorder, type Recorder } from '../../bench/lib/oracle/recorder.js';
import { buildUniverse, explorerSampler } from '../../bench/lib/oracle/workload.js';
import { startTestProxy } from '../helpers/proxy.js';

let lock: Lockstep | null = null;
let proxy: ProxyHandle | null = null;
let recorder: Recorder | null = null;

afterEach(async () => {
  await proxy?.close();
  await recorder?.close();
  await lock?.close();
  [lock, proxy, recorder] = [null, null, null];
});

/** The miners of the next `n` blocks: each one's address/info changes (block reward) on its block. */
function minersNext(l: Lockstep, n: number): string[] {
  const out = new Set<string>();
  for (let h = l.head() + 1; h <= l.head() + n; h++) out.add([...blockNames(l.seed, h)][0]!);
  return [...out];
}

describe('truth oracle', () => {
  it('the two simulators stay at the same head and answer the same bytes', async () => {
    lock = await startLockstep({ blockIntervalMs: 0 });
    lock.advance();
    lock.advance();
    expect(lock.truth.chain.head()).toBe(lock.upstream.chain.head());
    const get = async (base: string): Promise<string> => (await (await fetch(`${base}/tx/list?page=1`)).text()).replace(/"server_timestamp":\d+/, '').replaceAll(base, '');
    expect(await get(lock.truth.url)).toBe(await get(lock.upstream.url));
    expect(lock.producedAt(lock.head())).not.toBeNull();
  });

  it('reports no stale answer when the proxy is bypassed, over the whole explorer mix', async () => {
    lock = await startLockstep({ blockIntervalMs: 250 });
    lock.start();
    const sample = explorerSampler(buildUniverse(lock.seed, lock.head()), () => lock!.head());
    const t = await drive({ proxyUrl: lock.upstream.url, lock, sample, rate: 120, durationS: 2.5 });
    expect(t.requests).toBeGreaterThan(200);
    expect(t.byEndpoint.size).toBeGreaterThan(15);
    expect(t.errors).toBe(0);
    expect(t.stale).toBe(0);
    expect(t.headDelays.length).toBeGreaterThan(3);
  });

  it('detects a planted stale answer: a proxy keeping address/info long while the chain moves', async () => {
    lock = await startLockstep({ blockIntervalMs: 250 });
    const addresses = minersNext(lock, 8);
    // Long TTL, no head rule, no probe in the window (and miners are in no pending tx): nothing invalidates these entries.
    proxy = await startTestProxy([lock.upstream.url], { policies: { 'address/info': { ttlMs: 600_000, invalidateOnHead: false } } });
    let i = 0;
    const sample = (): string => `/address/info?address=${addresses[i++ % addresses.length]}`;
    lock.start();
    const t = await drive({ proxyUrl: proxy.url, lock, sample, rate: 60, durationS: 2.5 });
    expect(t.errors).toBe(0);
    expect(t.hits).toBeGreaterThan(t.requests / 2);
    const e = t.byEndpoint.get('address/info')!;
    expect(e.stale).toBeGreaterThan(5);
    expect(t.stale).toBe(e.stale);
    // The stale answers match the truth some blocks back (≥ 1), found by the search.
    expect(t.unmatched).toBe(0);
    expect(t.maxBehind).toBeGreaterThanOrEqual(1);
  });

  it('the recording wrapper counts an unchanged refetch, stamps aside, and not a changed one', async () => {
    lock = await startLockstep({ blockIntervalMs: 0 });
    recorder = await startRecorder(lock.upstream.url);
    const miner = [...blockNames(lock.seed, lock.head() + 1)][0]!;
    const get = (p: string): Promise<Response> => fetch(recorder!.url + p).then(async (r) => (await r.arrayBuffer(), r));
    await get('/block/max');
    await get('/block/max'); // new server_timestamp, same height: unchanged
    await get(`/address/info?address=${miner}`);
    lock.advance(); // rewards the miner: its address/info changes
    await get(`/address/info?address=${miner}`);
    await get('/block/max');
    const c = recorder.counts();
    expect(c.requests).toBe(5);
    expect(c.unchanged).toBe(1);
    expect(c.byEndpoint.get('block/max')).toEqual([3, 1]);
    expect(c.byEndpoint.get('address/info')).toEqual([2, 0]);
  });
});
