/**
 * UPSTREAM_QUORUM 2 with two upstreams that disagree about final blocks: no
 * majority. The answer is served short-lived with no stale windows, never kept
 * final; the dispute is counted and logged on /status with both versions'
 * hashes and upstreams; nobody is in the minority, so nobody is benched.
 */
import { describe, expect, it } from 'vitest';
import { counter, get, maxAge, startReplica } from '../helpers/replica.js';
import { perTest } from '../helpers/chain-fake.js';
import { answerBlocks, blockAsks, consensusStatus, fakesAt, FINAL, forgedBlock, HEAD, honestBlock } from './kit.js';

const t = perTest();

describe('quorum 2, two upstreams that disagree', () => {
  it('served short-lived without stale windows, counted, logged with both versions, nobody benched', async () => {
    const [a, b] = await fakesAt(t, HEAD, HEAD);
    answerBlocks(a, honestBlock);
    answerBlocks(b, (h) => forgedBlock(h));
    t.proxy = await startReplica([a.url, b.url], { upstream: { quorum: 2, disputeStrikes: 1, hedgeAfterMs: 0 } });
    const proxy = t.proxy;

    for (let i = 0; i < 3; i++) {
      const r = await get(proxy.url, `/block/detail?h=${FINAL - i}`);
      expect(r.status).toBe(200);
      expect(r.cache).toBe('MISS');
      expect(maxAge(r.headers)).toBeLessThanOrEqual(5);
    }
    expect(blockAsks(a)).toBe(3);
    expect(blockAsks(b)).toBe(3);
    expect(
      await counter(proxy.url, 'chainproxy_quorum_votes_total', { endpoint: 'block/detail', outcome: 'disputed' }),
    ).toBe(3);
    expect(await counter(proxy.url, 'chainproxy_upstream_sit_outs_total')).toBe(0);

    const status = await consensusStatus(proxy.url);
    expect(status).toMatchObject({ quorum: 2, disputes: 3 });
    const d = status!.recent[0]!;
    expect(d.outcome).toBe('unresolved');
    expect(d.versions.flatMap((v) => v.upstreams).sort()).toEqual(['u0', 'u1']);
    expect(d.versions).toHaveLength(2);
    expect(d.versions[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(d.versions[0]!.hash).not.toBe(d.versions[1]!.hash);

    // Stored with the volatile TTL and no stale windows.
    const entry = proxy.memory.peek(d.key)?.entry;
    expect(entry).toBeDefined();
    expect(entry!.freshUntil - entry!.createdAt).toBeLessThanOrEqual(5000);
    expect(entry!.swrUntil).toBe(entry!.freshUntil);
    expect(entry!.sieUntil).toBe(entry!.freshUntil);
  });

  it('when they agree, the answer is kept final after exactly one request to each', async () => {
    const [a, b] = await fakesAt(t, HEAD, HEAD);
    answerBlocks(a, honestBlock);
    // Same block, other volatile stamp and number spelling: the same content.
    answerBlocks(b, (h) =>
      honestBlock(h)
        .replace(/"server_timestamp":\d+/, '"server_timestamp":1')
        .replace(/"height":(\d+)/, '"height":$1.0'),
    );
    t.proxy = await startReplica([a.url, b.url], { upstream: { quorum: 2, hedgeAfterMs: 0 } });
    const r = await get(t.proxy.url, `/block/detail?h=${FINAL}`);
    expect(maxAge(r.headers)).toBeGreaterThan(3600);
    expect([blockAsks(a), blockAsks(b)]).toEqual([1, 1]);
    expect(await counter(t.proxy.url, 'chainproxy_quorum_votes_total', { outcome: 'agreed' })).toBe(1);
    expect((await get(t.proxy.url, `/block/detail?h=${FINAL}`)).cache).toBe('HIT');
    expect([blockAsks(a), blockAsks(b)]).toEqual([1, 1]);
  });
});
