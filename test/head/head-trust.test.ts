/**
 * Bounded trust in the chain head: one block/max answer far ahead neither
 * wedges block/max nor /readyz; a "final" block far above the head does not
 * raise the final height; a jump is believed only when a second upstream
 * confirms it (never through the same upstream's next probe); and
 * when every upstream reports lower heights for a few probe intervals the
 * proxy follows them down (log line and metric) instead of wedging.
 */
import { describe, expect, it } from 'vitest';
import { sendJson, waitFor } from '../helpers/fake-upstream.js';
import { counter, dataOf, get, maxAge, startReplica } from '../helpers/replica.js';
import { blockDetailAt, startChainFake, perTest, type ChainFake } from '../helpers/chain-fake.js';
import { untilHead } from '../helpers/until.js';

const HEAD = 4_842_503;
const PROBE_MS = 50;

const t = perTest();

async function one(patch: Parameters<typeof startReplica>[1] = {}): Promise<ChainFake> {
  const fake = await startChainFake(HEAD);
  t.fakes.push(fake);
  t.proxy = await startReplica([fake.url], { upstream: { probeIntervalMs: PROBE_MS, ...patch.upstream } });
  return fake;
}

/** The next block/max answer (to a probe or a request) says `height`; `told()` once it has. */
function lieOnce(fake: ChainFake, height: number): { told: () => boolean } {
  let told = false;
  fake.on('block/max', (_req, res) => {
    told = true;
    fake.on('block/max', null);
    sendJson(res, 200, `{"code":0,"msg":"success","data":{"height":${height}.0,"server_timestamp":${Date.now()}}}`);
  });
  return { told: () => told };
}

describe('one block/max answer 100 000 blocks ahead', () => {
  it('is not believed: block/max keeps answering the real head, fresh; /readyz stays 200', async () => {
    const fake = await one();
    expect((await get(t.proxy!.url, '/block/max')).status).toBe(200);
    const lie = lieOnce(fake, HEAD + 100_000);
    await waitFor(lie.told, 5000, 'the lie told (to a probe)');
    for (let i = 0; i < 5; i++) {
      const r = await get(t.proxy!.url, '/block/max');
      expect(r.status).toBe(200);
      expect(Number(dataOf(r.text)['height'])).toBe(HEAD);
    }
    await waitFor(async () => (await get(t.proxy!.url, '/block/max')).cache === 'HIT', 5000, 'block/max fresh again');
    expect((await get(t.proxy!.url, '/readyz')).status).toBe(200);
    expect(t.proxy!.tracker.bestHead()).toBe(HEAD);
    // Bounded upstream work per client request (no three-attempt storms).
    const before = fake.count('/block/max');
    await get(t.proxy!.url, '/block/max');
    expect(fake.count('/block/max') - before).toBeLessThanOrEqual(1);
  });

  it('a block/max request that meets the lie is answered from the real head', async () => {
    const fake = await one({ upstream: { probeIntervalMs: 60_000 } });
    lieOnce(fake, HEAD + 100_000);
    const r = await get(t.proxy!.url, '/block/max');
    expect(r.status).toBe(200);
    expect(Number(dataOf(r.text)['height'])).toBe(HEAD);
    expect(t.proxy!.tracker.bestHead()).toBe(HEAD);
    expect((await get(t.proxy!.url, '/block/max')).cache).toBe('HIT');
  });
});

describe('a jump far ahead', () => {
  it(
    'from a single upstream, repeated on every probe, ' + 'is never believed (its own probes confirm nothing)',
    async () => {
      const fake = await one();
      expect(Number(dataOf((await get(t.proxy!.url, '/block/max')).text)['height'])).toBe(HEAD);
      fake.head.value = HEAD + 1000;
      const probes = fake.count('/block/max');
      await fake.arrived(probes + 10, '/block/max', 'ten more probes');
      expect(t.proxy!.tracker.bestHead()).toBe(HEAD);
      expect(Number(dataOf((await get(t.proxy!.url, '/block/max')).text)['height'])).toBe(HEAD);
      fake.head.value = HEAD + 1; // the upstream comes back to a plausible head: believed at once
      await untilHead(t.proxy!.tracker, (h) => h === HEAD + 1, 'plausible head believed', 5000);
    },
  );

  it('reported by two upstreams at once is believed', async () => {
    const [a, b] = await Promise.all([startChainFake(HEAD), startChainFake(HEAD)]);
    t.fakes.push(a, b);
    t.proxy = await startReplica([a.url, b.url], { upstream: { probeIntervalMs: 60_000 } });
    a.head.value = HEAD + 5000;
    b.head.value = HEAD + 5000;
    await t.proxy.pool.probeNow();
    expect(t.proxy.tracker.bestHead()).toBe(HEAD + 5000);
  });
});

describe('a block/detail with is_finality:true far above the head', () => {
  it('does not raise the final height; it and later blocks keep short TTLs', async () => {
    const fake = await one({ upstream: { probeIntervalMs: 60_000 } });
    const far = HEAD + 100_000;
    fake.on('block/detail', (req, res) => {
      const h = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('h'));
      sendJson(res, 200, blockDetailAt(h, h <= HEAD - 15 || h === far));
    });
    const bogus = await get(t.proxy!.url, `/block/detail?h=${far}`);
    expect(bogus.status).toBe(200);
    expect(maxAge(bogus.headers)).toBeLessThanOrEqual(5);
    expect(t.proxy!.tracker.finalHeight() ?? 0).toBeLessThanOrEqual(HEAD);
    const next = await get(t.proxy!.url, `/tx/list?block_height=${HEAD + 10}&page=1&page_size=20`);
    expect(maxAge(next.headers)).toBeLessThanOrEqual(5);
  });
});

describe('every upstream reports a lower head', () => {
  it('for a few probe intervals: the proxy follows them down, says so, and block/max follows', async () => {
    const fake = await one();
    expect(Number(dataOf((await get(t.proxy!.url, '/block/max')).text)['height'])).toBe(HEAD);
    fake.head.value = HEAD - 50; // restored from an older snapshot
    await untilHead(t.proxy!.tracker, (h) => h === HEAD - 50, 'followed down', 5000);
    expect(await counter(t.proxy!.url, 'chainproxy_chain_head_rebases_total')).toBe(1);
    expect((await get(t.proxy!.url, '/readyz')).status).toBe(200);
    await waitFor(
      async () => Number(dataOf((await get(t.proxy!.url, '/block/max')).text)['height']) === HEAD - 50,
      5000,
      'block/max follows',
    );
    // ...and from there on never backwards again.
    fake.head.value = HEAD - 49;
    await waitFor(
      async () => Number(dataOf((await get(t.proxy!.url, '/block/max')).text)['height']) === HEAD - 49,
      5000,
      'block/max advances',
    );
  });
});
