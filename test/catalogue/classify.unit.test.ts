import { describe, expect, it } from 'vitest';
import { classify } from '../../src/catalogue/classify.js';
import { buildCatalogue } from '../../src/catalogue/index.js';
import { canonicalize } from '../../src/catalogue/canonicalize.js';
import type { EndpointName } from '../../src/catalogue/types.js';
import type { ChainView } from '../../src/chain/types.js';
import { ADDR, canon, chainAt, HASH, limits } from './helpers.js';

const DAY = 86_400_000;
const ok = (data: unknown) => ({ code: 0, msg: 'success', data });
const chain = chainAt(1000, 990);

function run(name: EndpointName, query: string, json: unknown, status = 200, c: ChainView = chain) {
  return classify({ req: canon(name, query), status, json, chain: c });
}

describe('classify: block/detail', () => {
  it('final block: finalTtl, not head-dependent, reports the final height', () => {
    const c = run('block/detail', 'h=900', ok({ height: 900, is_finality: true }));
    expect(c).toMatchObject({
      cacheable: true,
      negative: false,
      ttlMs: DAY,
      headDependent: false,
      finalAt: null,
      observedFinal: 900,
    });
  });

  it('non-final block: volatile ttl, never promoted (is_finality false is in the body)', () => {
    const c = run('block/detail', 'h=995', ok({ height: 995, is_finality: false }));
    expect(c).toMatchObject({ cacheable: true, ttlMs: 5000, finalAt: null, observedFinal: null });
  });
});

describe('classify: tx/list?block_height', () => {
  it('final block: a day', () => {
    expect(run('tx/list', 'block_height=990', ok({ list: [] }))).toMatchObject({
      ttlMs: DAY,
      finalAt: null,
      headDependent: false,
    });
  });
  it('non-final block: 5 s, finalAt = height', () => {
    expect(run('tx/list', 'block_height=995', ok({ list: [] }))).toMatchObject({
      ttlMs: 5000,
      finalAt: 995,
      headDependent: false,
    });
  });
  it('block above the head: 5 s, never promoted', () => {
    expect(run('tx/list', 'block_height=2000', ok({ list: [] }))).toMatchObject({ ttlMs: 5000, finalAt: null });
  });
  it('unknown final height: volatile', () => {
    expect(run('tx/list', 'block_height=5', ok({ list: [] }), 200, chainAt(null, null))).toMatchObject({
      ttlMs: 5000,
      finalAt: null,
    });
  });
  it('list head: a few seconds, invalidated by the head', () => {
    expect(run('tx/list', '', ok({ list: [] }))).toMatchObject({ ttlMs: 3000, headDependent: true, finalAt: null });
  });
});

describe('classify: tx/detail', () => {
  const q = `hash=${HASH}`;
  it('pending: about 1 s and head-dependent', () => {
    const c = run('tx/detail', q, ok({ status: 2, block_height: null }));
    expect(c).toMatchObject({ cacheable: true, ttlMs: 1000, headDependent: true, finalAt: null });
  });
  it('confirmed in a final block: a day', () => {
    expect(run('tx/detail', q, ok({ status: 1, block_height: 980 }))).toMatchObject({
      ttlMs: DAY,
      finalAt: null,
      headDependent: false,
    });
  });
  it('failed (status 0) in a final block is immutable too', () => {
    expect(run('tx/detail', q, ok({ status: 0, block_height: 990 }))).toMatchObject({ ttlMs: DAY });
  });
  it('confirmed in a non-final block: 5 s, finalAt = its height', () => {
    expect(run('tx/detail', q, ok({ status: 1, block_height: 999 }))).toMatchObject({ ttlMs: 5000, finalAt: 999 });
  });
});

describe('classify: facts and other endpoints', () => {
  it('block/max reports the head (fractional height truncated)', () => {
    expect(run('block/max', '', ok({ height: 1234.0, server_timestamp: 1 }))).toMatchObject({
      ttlMs: 1000,
      observedHead: 1234,
    });
    expect(run('block/max', '', ok({ height: 1234.7 })).observedHead).toBe(1234);
    expect(run('block/max', '', ok({ height: 'x' })).observedHead).toBeNull();
  });

  it('block/list reports the highest final height', () => {
    const list = [
      { height: 1000, is_finality: false },
      { height: 992, is_finality: true },
      { height: 991, is_finality: true },
    ];
    expect(run('block/list', '', ok({ list }))).toMatchObject({ ttlMs: 3000, headDependent: true, observedFinal: 992 });
    expect(run('block/list', '', ok({ list: [{ height: 5, is_finality: false }] })).observedFinal).toBeNull();
  });

  it.each([
    ['token/list', '', 600_000, false],
    ['token/detail', 'token=NAX', 600_000, false],
    ['tx/count/history', '', 300_000, false],
    ['address/count/history', '', 300_000, false],
    ['nax/history', '', 300_000, false],
    ['tx/count/today', '', 10_000, true],
    ['chain/summary', '', 10_000, true],
    ['address/info', `address=${ADDR}`, 5000, true],
    ['holders', '', 60_000, false],
    ['tx/list/pending', '', 1000, true],
  ] as const)('%s: ttl %d, headDependent %s', (name, query, ttl, head) => {
    const c = run(name, query, ok({}));
    expect(c).toMatchObject({ cacheable: true, negative: false, ttlMs: ttl, headDependent: head, sieMs: DAY });
    expect(c.swrMs).toBeGreaterThanOrEqual(1000);
  });
});

describe('classify: errors', () => {
  it('4xx envelope: negative, 1 s, no swr/sie', () => {
    const c = run('tx/detail', `hash=${HASH}`, { code: 404, msg: 'not found', data: null }, 404);
    expect(c).toMatchObject({
      cacheable: true,
      negative: true,
      ttlMs: 1000,
      swrMs: 0,
      sieMs: 0,
      headDependent: false,
      finalAt: null,
    });
  });
  it('200 with a non-zero code: negative', () => {
    expect(run('block/detail', 'h=1', { code: 1, msg: 'no such block', data: null })).toMatchObject({
      negative: true,
      ttlMs: 1000,
    });
  });
  it('negative caching can be disabled per endpoint', () => {
    const cat = buildCatalogue({ 'tx/detail': { negativeTtlMs: 0 } });
    const req = canonicalize(cat.get('tx/detail'), `hash=${HASH}`, limits);
    expect(classify({ req, status: 404, json: { code: 1, msg: 'x', data: null }, chain })).toMatchObject({
      cacheable: false,
      negative: true,
    });
  });
  it('5xx, malformed envelopes and non-objects are never stored', () => {
    expect(run('block/max', '', { code: 500, msg: 'boom', data: null }, 500)).toMatchObject({
      cacheable: false,
      negative: true,
    });
    expect(run('block/max', '', ok({ height: 5 }), 503).cacheable).toBe(false);
    expect(run('block/max', '', { msg: 'no code' }).cacheable).toBe(false);
    expect(run('block/max', '', [1, 2]).cacheable).toBe(false);
    expect(run('block/max', '', null).cacheable).toBe(false);
    expect(run('block/max', '', { code: '0', data: {} }).cacheable).toBe(false);
    expect(run('block/max', '', ok({ height: 5 }), 302).cacheable).toBe(false);
  });
  it('errors teach nothing about the chain', () => {
    expect(run('block/max', '', { code: 1, msg: 'x', data: { height: 5 } })).toMatchObject({
      observedHead: null,
      observedFinal: null,
    });
  });
});
