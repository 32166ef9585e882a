/** The precise rule states what keeps an answer (a decision); the lifetime module turns it into timing. */
import { describe, expect, it } from 'vitest';
import { keptBy } from '../../src/cache/lifetime.js';
import { classify } from '../../src/catalogue/classify.js';
import type { EndpointName } from '../../src/catalogue/types.js';
import type { ChainView } from '../../src/chain/types.js';
import { defaultConfig } from '../../src/config/defaults.js';
import type { GuardReason } from '../../src/invalidation/metrics.js';
import { PreciseRule } from '../../src/invalidation/rule.js';
import { ADDR, canon, chainAt } from '../catalogue/helpers.js';

const ok = (data: unknown) => ({ code: 0, msg: 'success', data });
/** The one transaction the reader saw in the pool. */
const POOLED = 'ef'.repeat(32);
/** The hash the reader knows height 995 by. */
const KNOWN = 'ab'.repeat(32);
/** A final answer's TTL (block/detail, tx/detail): what keeps an answer about one block or a pending transaction. */
const DAY = 86_400_000;

function decide(
  name: EndpointName,
  query: string,
  data: unknown,
  chain: ChainView,
  final: number | null,
  maxAgeByEndpoint: Partial<Record<EndpointName, number>> = {},
) {
  const guarded: GuardReason[] = [];
  const cfg = { ...defaultConfig().invalidation, pendingPollMs: 1000, maxAgeByEndpoint };
  const rule = new PreciseRule(
    cfg,
    chain,
    (r) => guarded.push(r),
    (h) => (h === 995 ? KNOWN : undefined),
    (hash) => hash === POOLED,
  );
  const req = canon(name, query);
  const cls = classify({ req, status: 200, json: ok(data), chain });
  return { keeping: rule.decide(req, cls, data, final), cls, guarded };
}

describe('PreciseRule.decide', () => {
  const chain = chainAt(1000, 990);

  it('an address answer: kept by its tag, at most the safety max-age; clients told its own TTL', () => {
    const { keeping, cls } = decide('address/info', `address=${ADDR}`, { address: ADDR, balance: '1' }, chain, 990);
    expect(keeping).toEqual({ kind: 'tags', deps: { tags: [`address:${ADDR}`], watchFinal: null }, boundMs: 60_000 });
    const kept = keptBy(cls, keeping);
    expect(kept.cls).toMatchObject({ ttlMs: 60_000, headDependent: false });
    expect(kept.deps?.clientMaxMs).toBe(cls.ttlMs);
  });

  it('a block awaiting finality: a final answer’s lifetime while the final height is known, else its own', () => {
    const data = { height: 995, is_finality: false };
    expect(decide('block/detail', 'h=995', data, chain, 990).keeping).toEqual({
      kind: 'tags',
      deps: { tags: [], watchFinal: 995 },
      boundMs: DAY,
    });
    expect(decide('block/detail', 'h=995', data, chain, null).keeping).toEqual({
      kind: 'watch',
      deps: { tags: [], watchFinal: 995 },
    });
    // An operator's bound for the endpoint still applies.
    expect(decide('block/detail', 'h=995', data, chain, 990, { 'block/detail': 30_000 }).keeping).toMatchObject({
      kind: 'tags',
      boundMs: 30_000,
    });
  });

  it('a block named by its hash: its height watched while the reader knows that height by that hash', () => {
    const data = { height: 995, block_hash: KNOWN, is_finality: false };
    expect(decide('block/detail', `h=${KNOWN}`, data, chain, 990).keeping).toEqual({
      kind: 'tags',
      deps: { tags: [], watchFinal: 995 },
      boundMs: DAY,
    });
    const other = { ...data, block_hash: 'cd'.repeat(32) };
    expect(decide('block/detail', `h=${'cd'.repeat(32)}`, other, chain, 990).keeping).toEqual({ kind: 'own' });
    const unread = { ...data, height: 996 };
    expect(decide('block/detail', `h=${KNOWN}`, unread, chain, 990).keeping).toEqual({ kind: 'own' });
  });

  it('a pending transaction: kept by its own tag (its leaving the pool), as long as a final answer', () => {
    const hash = 'ef'.repeat(32);
    expect(decide('tx/detail', `hash=${hash}`, { hash, status: 2, block_height: null }, chain, 990).keeping).toEqual({
      kind: 'tags',
      deps: { tags: [`tx:${hash}`], watchFinal: null },
      boundMs: DAY,
    });
    // One the reader has not seen in the pool (it would not see it leave): its own rule.
    const other = '12'.repeat(32);
    const data = { hash: other, status: 2, block_height: null };
    expect(decide('tx/detail', `hash=${other}`, data, chain, 990).keeping).toEqual({ kind: 'own' });
  });

  it('one pending test for both modes: status 2 with a block height is pending (short, head rule; its own tag)', () => {
    const data = { hash: POOLED, status: 2, block_height: 995 };
    const { keeping, cls } = decide('tx/detail', `hash=${POOLED}`, data, chain, 990);
    expect(cls).toMatchObject({ ttlMs: 1000, headDependent: true, finalAt: null });
    expect(keeping).toEqual({ kind: 'tags', deps: { tags: [`tx:${POOLED}`], watchFinal: null }, boundMs: DAY });
    // Mined (any other status, with its block): its block's finality in both modes.
    const mined = decide('tx/detail', `hash=${POOLED}`, { ...data, status: 1 }, chain, 990);
    expect(mined.cls).toMatchObject({ ttlMs: 5000, finalAt: 995 });
    expect(mined.keeping).toEqual({ kind: 'tags', deps: { tags: [], watchFinal: 995 }, boundMs: DAY });
  });

  it('a global list moves with every block: the head rule', () => {
    expect(decide('holders', 'page=1&page_size=20', { list: [] }, chain, 990).keeping).toEqual({ kind: 'head' });
  });

  it('a block above the trusted head: its own (short) rule, counted as a guarded fact', () => {
    const { keeping, guarded } = decide('block/detail', 'h=1005', { height: 1005, is_finality: false }, chain, 990);
    expect(keeping).toEqual({ kind: 'own' });
    expect(guarded).toEqual(['future-height']);
  });
});
