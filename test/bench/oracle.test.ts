/**
 * The oracle of bench (o) on real sockets: two lockstep simulators, a real proxy, the workload
 * driver. It must see a planted stale answer and none when the proxy is bypassed; the recording
 * wrapper classifies every upstream request (first, changed, unchanged, background by purpose).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { blockNames, internalCreditsAt, touchedAt } from '../../src/sim/index.js';
import type { ProxyHandle } from '../../src/app.js';
import { crawl } from '../../bench/lib/oracle/crawl.js';
import { drive, startDriver, type Tally } from '../../bench/lib/oracle/driver.js';
import { startLockstep, type Lockstep } from '../../bench/lib/oracle/lockstep.js';
import {
  PURPOSE_HEADER,
  backgroundTotal,
  startRecorder,
  type Recorder,
  type Split,
} from '../../bench/lib/oracle/recorder.js';
import { internalLine, summarize } from '../../bench/lib/oracle/summary.js';
import { buildUniverse, explorerSampler, universePaths } from '../../bench/lib/oracle/workload.js';
import { waitFor } from '../helpers/fake-upstream.js';
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
    const get = async (base: string): Promise<string> =>
      (await (await fetch(`${base}/tx/list?page=1`)).text()).replace(/"server_timestamp":\d+/, '').replaceAll(base, '');
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
    // Long TTL, no head rule, no probe in the window (and miners are in no pending tx): nothing invalidates these
    // entries.
    proxy = await startTestProxy([lock.upstream.url], {
      policies: { 'address/info': { ttlMs: 600_000, invalidateOnHead: false } },
    });
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

  it('a paired driver sends each drawn request to every target at once, judges each apart, in windows', async () => {
    lock = await startLockstep({ blockIntervalMs: 250 });
    const addresses = minersNext(lock, 8);
    proxy = await startTestProxy([lock.upstream.url], {
      policies: { 'address/info': { ttlMs: 600_000, invalidateOnHead: false } },
    });
    let drawn = 0;
    const sample = (): string => `/address/info?address=${addresses[drawn++ % addresses.length]}`;
    const missed: number[][] = [[], []];
    lock.start();
    const d = startDriver({
      targets: [lock.upstream.url, proxy.url],
      lock,
      sample,
      rate: 60,
      onJudged: (a, k) => void (a.stale ? missed[k]!.push(a.missedMs ?? -1) : undefined),
    });
    await waitFor(() => drawn >= 40, 10_000, '40 draws');
    const first = d.cut();
    await waitFor(() => drawn >= 120, 10_000, '120 draws');
    const last = await d.stop();
    // Every draw went to both targets: the bypass and the proxy answered as many requests, split by the cut.
    for (const k of [0, 1]) {
      expect(first[k]!.requests + last[k]!.requests).toBe(drawn);
      expect(first[k]!.requests).toBeGreaterThanOrEqual(35);
      expect(first[k]!.errors + last[k]!.errors).toBe(0);
    }
    expect(first[0]!.stale + last[0]!.stale).toBe(0);
    expect(first[1]!.stale + last[1]!.stale).toBeGreaterThan(5);
    // A stale answer comes after the block it missed was produced.
    expect(missed[0]).toEqual([]);
    expect(Math.min(...missed[1]!)).toBeGreaterThan(0);
  });

  it(
    'sees an internal transfer no block names: ' + 'the cached address/info of its beneficiary is stale, and said so',
    async () => {
      for (const internalTransfers of [true, false]) {
        lock = await startLockstep({ blockIntervalMs: 0, internalTransfers });
        // the next block crediting an address that no block up to it names
        let h = lock.head() + 1;
        let address: string | undefined;
        for (; address === undefined; h++) {
          const named = new Set<string>();
          for (let k = lock.head() + 1; k <= h; k++) for (const a of touchedAt(lock.seed, k).addresses) named.add(a);
          address = internalCreditsAt(lock.seed, h).find((a) => !named.has(a));
        }
        const credited = h - 1;
        while (lock.head() < credited - 1) lock.advance();
        proxy = await startTestProxy([lock.upstream.url], {
          policies: { 'address/info': { ttlMs: 600_000, invalidateOnHead: false } },
        });
        const path = `/address/info?address=${address}`;
        await get(proxy.url, path); // cached at the block before the credit
        const h0 = lock.head();
        lock.advance();
        const t = await drive({ proxyUrl: proxy.url, lock, sample: () => path, rate: 40, durationS: 0.5 });
        const w = {
          tally: t,
          recorder: { requests: 0, first: 0, changed: 0, unchanged: 0, background: new Map(), byEndpoint: new Map() },
          blocks: 1,
          internalCredits: internalTransfers ? lock.creditsIn(h0, lock.head()) : null,
          ended: null,
        };
        expect(t.requests).toBeGreaterThan(5);
        if (internalTransfers) {
          expect([t.stale, t.staleCredited, t.maxBehind]).toEqual([t.requests, t.requests, 1]);
          expect(w.internalCredits).toBeGreaterThanOrEqual(1);
          expect(internalLine(w)).toContain(
            `address/info stale ${t.requests}/${t.requests}, ${t.requests} of them of an address credited`,
          );
        } else {
          expect([t.stale, t.staleCredited]).toEqual([0, 0]);
          expect(internalLine(w)).toBe('internal transfers off (--oracle-no-internal)');
        }
        await proxy.close();
        await lock.close();
        [proxy, lock] = [null, null];
      }
    },
  );

  it('the recording wrapper classifies: first, unchanged (stamps aside), changed', async () => {
    lock = await startLockstep({ blockIntervalMs: 0 });
    recorder = await startRecorder(lock.upstream.url);
    const miner = [...blockNames(lock.seed, lock.head() + 1)][0]!;
    await get(recorder.url, '/block/max');
    await get(recorder.url, '/block/max'); // new server_timestamp, same height: unchanged
    await get(recorder.url, `/address/info?address=${miner}`);
    lock.advance(); // rewards the miner: its address/info changes
    await get(recorder.url, `/address/info?address=${miner}`);
    await get(recorder.url, '/block/max');
    const c = recorder.take();
    expect([c.requests, c.first, c.changed, c.unchanged, c.background.size]).toEqual([5, 2, 2, 1, 0]);
    expect(split(c.byEndpoint.get('block/max')!)).toEqual([3, 1, 1, 1]);
    expect(split(c.byEndpoint.get('address/info')!)).toEqual([2, 1, 1, 0]);
    expect(recorder.firstTimes()).toHaveLength(2);
  });

  it(
    'a request with x-chainproxy-purpose is background, by purpose; ' +
      'first means never requested by anyone; a take keeps what was seen',
    async () => {
      lock = await startLockstep({ blockIntervalMs: 0 });
      recorder = await startRecorder(lock.upstream.url);
      const probe = { [PURPOSE_HEADER]: 'probe' };
      await get(recorder.url, '/block/max', probe); // the URL's first request, but the proxy's own
      await get(recorder.url, '/block/max', probe); // unchanged, still background
      await get(recorder.url, '/tx/list?block_height=5', { [PURPOSE_HEADER]: 'block' });
      await get(recorder.url, '/block/max'); // a client's miss: not first (the probe asked), unchanged
      const c0 = recorder.take();
      expect([c0.requests, c0.first, c0.changed, c0.unchanged]).toEqual([4, 0, 0, 1]);
      expect(c0.background).toEqual(
        new Map([
          ['probe', { requests: 2, unchanged: 1 }],
          ['block', { requests: 1, unchanged: 0 }],
        ]),
      );
      expect(backgroundTotal(c0.byEndpoint.get('block/max')!)).toBe(2);
      await get(recorder.url, '/tx/list?block_height=5'); // seen before the take: unchanged, not first
      const c = recorder.take();
      expect(c0.requests).toBe(4); // a taken count no longer moves
      expect([c.requests, c.first, c.unchanged, c.background.size]).toEqual([1, 0, 1, 0]);
      // The summary splits upstream requests per 1000 client requests; the parts add up to the total.
      const s = summarize({
        tally: { ...tally(), requests: 1000 },
        recorder: c,
        blocks: 0,
        internalCredits: null,
        ended: null,
      });
      expect([s.upPer1000, s.firstPer1000, s.changedPer1000, s.unchangedPer1000, s.backgroundPer1000]).toEqual([
        1, 0, 0, 1, 0,
      ]);
    },
  );

  it('the crawl list holds every path the sampler draws, and a crawl makes each of them seen upstream', async () => {
    lock = await startLockstep({ blockIntervalMs: 0 });
    const u = buildUniverse(lock.seed, lock.head(), 200);
    const all = universePaths(u, () => lock!.head());
    const known = new Set(all);
    expect(known.size).toBe(all.length);
    const sample = explorerSampler(u, () => lock!.head());
    for (let i = 0; i < 20_000; i++) expect(known.has(sample())).toBe(true);
    recorder = await startRecorder(lock.upstream.url);
    proxy = await startTestProxy([recorder.url]);
    const some = all.filter((_, i) => i % 40 === 0);
    const c = await crawl(proxy.url, some, 8);
    expect([c.requests, c.errors]).toEqual([some.length, 0]);
    const seen = recorder.take();
    // Seen upstream: first asked by the crawl, or earlier by the proxy's own requests (the head probe asks block/max).
    for (const p of some) {
      const e = seen.byEndpoint.get(p.split('?')[0]!.slice(1));
      expect(
        (e?.first ?? 0) + [...(e?.background.values() ?? [])].reduce((n, b) => n + b.requests, 0),
        p,
      ).toBeGreaterThan(0);
    }
    expect(seen.first).toBeGreaterThanOrEqual(some.filter((p) => !p.startsWith('/block/max')).length);
    // A fresh proxy (empty cache) asking them all again: every one is a miss, none is first.
    await proxy.close();
    proxy = await startTestProxy([recorder.url]);
    await crawl(proxy.url, some, 8);
    const again = recorder.take();
    expect(again.requests).toBeGreaterThanOrEqual(some.length);
    expect(again.first).toBe(0);
    // Spread over 0.2 s: every path, one at a time at an even pace (the last one at 9/10 of it).
    const spread = await crawl(proxy.url, some.slice(0, 10), 4, 0.2);
    expect([spread.requests, spread.errors]).toEqual([10, 0]);
    expect(spread.seconds).toBeGreaterThanOrEqual(0.17);
  });
});

const get = (base: string, p: string, headers: Record<string, string> = {}): Promise<void> =>
  fetch(base + p, { headers }).then(async (r) => void (await r.arrayBuffer()));

const split = (s: Split): number[] => [s.requests, s.first, s.changed, s.unchanged];

const tally = (): Tally => ({
  requests: 0,
  hits: 0,
  errors: 0,
  dropped: 0,
  stale: 0,
  unmatched: 0,
  maxBehind: 0,
  staleCredited: 0,
  byEndpoint: new Map(),
  headDelays: [],
  latencies: [],
  durationS: 1,
});
