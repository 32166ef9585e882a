/**
 * One ballot per upstream: an answer reached through a retry or a hedge is
 * the ballot of the upstream that gave it, and the vote then asks only other
 * upstreams. With two upstreams and quorum 2, one of them failing, no answer
 * is ever kept final on the strength of the other alone.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { sendJson } from '../helpers/fake-upstream.js';
import { counter, get, maxAge, startReplica } from '../helpers/replica.js';
import { perTest, type ChainFake, SLOWER_MS } from '../helpers/chain-fake.js';
import { answerBlocks, blockAsks, fakesAt, FINAL, HEAD, honestBlock } from './kit.js';

const t = perTest();

const failBlocks = (fake: ChainFake): void =>
  fake.on('block/detail', (_req, res) => sendJson(res, 503, '{"code":503,"msg":"unavailable","data":null}'));

/** Far slower than the hedge delay and the other upstream, even on a loaded machine. */
const SLOW_MS = 1500;

/** block/detail answered honestly after `ms`. */
function slowBlocks(fake: ChainFake, ms: number): void {
  fake.on('block/detail', (req: IncomingMessage, res: ServerResponse) => {
    const h = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('h'));
    setTimeout(() => sendJson(res, 200, honestBlock(h)), ms);
  });
}

describe('retries and hedges never vote twice for one upstream', () => {
  it(
    'retry: the first upstream fails, the second answers; ' + 'it is not asked again, the answer is short-lived',
    async () => {
      const [a, b] = await fakesAt(t, HEAD, HEAD);
      failBlocks(a);
      answerBlocks(b, honestBlock);
      b.delay(SLOWER_MS); // a looks faster, by far: asked first
      t.proxy = await startReplica([a.url, b.url], { upstream: { quorum: 2, hedgeAfterMs: 0, maxAttempts: 3 } });
      const r = await get(t.proxy.url, `/block/detail?h=${FINAL}`);
      expect(r.status).toBe(200);
      expect(maxAge(r.headers)).toBeLessThanOrEqual(5);
      expect(blockAsks(b)).toBe(1);
      expect(blockAsks(a)).toBe(2); // the first attempt, then its own ballot (failed again)
      expect(await counter(t.proxy.url, 'chainproxy_quorum_votes_total', { outcome: 'short' })).toBe(1);
      expect(await counter(t.proxy.url, 'chainproxy_upstream_retries_total')).toBe(1);
    },
  );

  it('hedge lost by the other: the hedge failed, so the slow answer is one ballot, not two', async () => {
    const [a, b] = await fakesAt(t, HEAD, HEAD);
    slowBlocks(a, SLOW_MS);
    failBlocks(b);
    b.delay(SLOWER_MS); // a looks faster, by far: the first attempt goes there
    t.proxy = await startReplica([a.url, b.url], { upstream: { quorum: 2, hedgeAfterMs: 30, hedgeQuantile: 0 } });
    const r = await get(t.proxy.url, `/block/detail?h=${FINAL}`);
    expect(r.status).toBe(200);
    expect(maxAge(r.headers)).toBeLessThanOrEqual(5);
    expect(await counter(t.proxy.url, 'chainproxy_upstream_hedges_total')).toBe(1);
    expect(blockAsks(a)).toBe(1);
    expect(blockAsks(b)).toBe(2); // the hedge, then its ballot
    expect(await counter(t.proxy.url, 'chainproxy_quorum_votes_total', { outcome: 'short' })).toBe(1);
  });

  it('hedge won: the winner is one ballot, the hedged-away upstream is asked for its own', async () => {
    const [a, b] = await fakesAt(t, HEAD, HEAD);
    slowBlocks(a, SLOW_MS);
    answerBlocks(b, honestBlock);
    b.delay(SLOWER_MS); // a looks faster, by far: the first attempt goes there
    t.proxy = await startReplica([a.url, b.url], { upstream: { quorum: 2, hedgeAfterMs: 30, hedgeQuantile: 0 } });
    const r = await get(t.proxy.url, `/block/detail?h=${FINAL}`);
    expect(maxAge(r.headers)).toBeGreaterThan(3600);
    expect(await counter(t.proxy.url, 'chainproxy_upstream_hedges_total')).toBe(1);
    expect(blockAsks(b)).toBe(1);
    expect(blockAsks(a)).toBe(2); // hedged away, then its ballot
    expect(await counter(t.proxy.url, 'chainproxy_quorum_votes_total', { outcome: 'agreed' })).toBe(1);
  });
});
