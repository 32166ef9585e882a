/**
 * UPSTREAM_QUORUM 2, three upstreams, one answering final blocks with another
 * (schema-valid) block hash, and the fastest, so it is asked first. No lie is
 * ever served nor kept: the two honest upstreams outvote it, the honest block
 * is kept with the final TTL, each dispute is counted and logged on /status
 * with both hashes and their upstreams, and after UPSTREAM_DISPUTE_STRIKES lost
 * disputes the liar sits out (then no longer asked: a vote costs two requests).
 */
import { describe, expect, it } from 'vitest';
import { counter, dataOf, get, maxAge, startReplica } from '../helpers/replica.js';
import { perTest } from '../helpers/chain-fake.js';
import {
  benchOf,
  blockAsks,
  consensusStatus,
  FINAL,
  forgedBlock,
  honestBlock,
  honestPairAndLiar,
  servedHash,
} from './kit.js';

const t = perTest();
const HONEST_HASH = JSON.parse(honestBlock(FINAL)).data.block_hash as string;

describe('quorum 2, three upstreams, one lying about final blocks', () => {
  it('12 of 12 final blocks are the honest ones, kept final; the liar is outvoted, logged and benched', async () => {
    const [a, b, liar] = await honestPairAndLiar(t);
    t.proxy = await startReplica([a.url, b.url, liar.url], {
      upstream: { quorum: 2, disputeStrikes: 3, disputeWindowMs: 60_000, hedgeAfterMs: 0 },
    });
    const proxy = t.proxy;

    for (let i = 0; i < 12; i++) {
      const h = FINAL - i;
      const r = await get(proxy.url, `/block/detail?h=${h}`);
      expect(r.status).toBe(200);
      expect(servedHash(r.text), `block ${h}`).toBe(JSON.parse(honestBlock(h)).data.block_hash);
      expect(maxAge(r.headers), `block ${h}`).toBeGreaterThan(3600);
      expect((await get(proxy.url, `/block/detail?h=${h}`)).cache).toBe('HIT'); // kept: no further vote
    }
    expect(liar.count('/block/detail')).toBe(3); // three lost disputes, then benched
    expect(await counter(proxy.url, 'chainproxy_quorum_votes_total', { outcome: 'majority' })).toBe(3);
    expect(await counter(proxy.url, 'chainproxy_quorum_votes_total', { outcome: 'agreed' })).toBe(9);
    expect(await counter(proxy.url, 'chainproxy_upstream_sit_outs_total', { upstream: 'u2', reason: 'disputes' })).toBe(
      1,
    );
    expect((await benchOf(proxy.url, 'u2'))?.reason).toBe('disputes');
    const page = dataOf((await get(proxy.url, '/dashboard/data.json')).text);
    expect(page['consensus']).toEqual({ votes: { agreed: 9, majority: 3 }, sitOuts: { u2: 1 } });

    const status = await consensusStatus(proxy.url);
    expect(status).toMatchObject({ quorum: 2, disputes: 3 });
    expect(status!.recent).toHaveLength(3);
    const first = status!.recent[0]!;
    expect(first).toMatchObject({ endpoint: 'block/detail', outcome: 'majority' });
    expect(first.key).toContain(`h=${FINAL}`);
    expect(first.versions.map((v) => v.upstreams.slice().sort())).toEqual([['u0', 'u1'], ['u2']]);
    expect(new Set(first.versions.map((v) => v.hash)).size).toBe(2);
    expect(HONEST_HASH).not.toBe(forgedBlock(FINAL).match(/"block_hash":"(\w+)"/)![1]);
    // Honest upstreams asked once per block each at most: 12 blocks, 2 votes each after the liar sat out.
    expect(blockAsks(a) + blockAsks(b)).toBe(3 * 2 + 9 * 2);
  });

  it('with quorum 1 (the default) the fastest liar wins every time: the gap the vote closes', async () => {
    const [a, b, liar] = await honestPairAndLiar(t);
    t.proxy = await startReplica([a.url, b.url, liar.url], { upstream: { hedgeAfterMs: 0 } });
    // Warm the latency averages so the fastest is known.
    for (let i = 0; i < 3; i++) await get(t.proxy.url, `/tx/list?page=${i + 1}&page_size=20`);
    const r = await get(t.proxy.url, `/block/detail?h=${FINAL}`);
    expect(servedHash(r.text)).not.toBe(HONEST_HASH);
    expect(maxAge(r.headers)).toBeGreaterThan(3600);
    expect(await consensusStatus(t.proxy.url)).toBeNull();
  });
});
