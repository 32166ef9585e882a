/**
 * Every validation error of the API: a 400 `{code: non-zero, msg naming
 * the parameter, data: null}` envelope, `Cache-Control: no-store`, and no
 * upstream request at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, get, startEnv, type Env } from '../helpers/proxy-kit.js';

const ADDR = 'n1Gfg8uqtFsvGKZn6XtVmEb116ZtagRHDoe';
const HASH = 'eb3c8d848679ad1786d5986da48bcc5d5732141fd6fccde0a9a3bfd78ae1d970';

const BAD = 4001;
const MISSING = 4002;
const DUPLICATE = 4003;

type Case = [label: string, url: string, param: string, code: number];

const cases: Case[] = [
  // page
  ['page 0', '/tx/list?page=0', 'page', BAD],
  ['page negative', '/block/list?page=-1', 'page', BAD],
  ['page fractional', '/contracts?page=1.5', 'page', BAD],
  ['page not a number', '/holders?page=abc', 'page', BAD],
  ['page exponent', '/holders?page=1e3', 'page', BAD],
  ['page empty', '/holders?page=', 'page', BAD],
  ['page with space', '/holders?page=%201', 'page', BAD],
  ['page hex', '/holders?page=0x10', 'page', BAD],
  // page_size
  ['page_size 0', '/tx/list?page_size=0', 'page_size', BAD],
  ['page_size 101', '/block/list?page_size=101', 'page_size', BAD],
  ['page_size huge', '/nax/history?page_size=99999999999999999999999', 'page_size', BAD],
  ['page_size fractional', '/tx/list/pending?page_size=2.0', 'page_size', BAD],
  // days
  ['days 0', '/tx/count/history?days=0', 'days', BAD],
  ['days 366', '/tx/count/history?days=366', 'days', BAD],
  ['days negative', '/address/count/history?days=-5', 'days', BAD],
  ['days not a number', '/address/count/history?days=week', 'days', BAD],
  // block_height
  ['block_height fractional', '/tx/list?block_height=1.5', 'block_height', BAD],
  ['block_height text', '/tx/list?block_height=latest', 'block_height', BAD],
  ['block_height negative', '/tx/list?block_height=-1', 'block_height', BAD],
  // address
  ['address too short', `/address/info?address=${ADDR.slice(0, 34)}`, 'address', BAD],
  ['address too long', `/address/info?address=${ADDR}x`, 'address', BAD],
  ['address wrong prefix', `/address/info?address=m${ADDR.slice(1)}`, 'address', BAD],
  ['address non-base58 0', `/tx/nrc20?address=${ADDR.slice(0, 34)}0`, 'address', BAD],
  ['address non-base58 O', `/nax/profits?address=${ADDR.slice(0, 34)}O`, 'address', BAD],
  ['address non-base58 l', `/tx/listByAddress?address=${ADDR.slice(0, 34)}l`, 'address', BAD],
  ['contract malformed', '/token/holders?contract=n1notanaddress', 'contract', BAD],
  // hash
  ['hash 63 hex', `/tx/detail?hash=${HASH.slice(1)}`, 'hash', BAD],
  ['hash 65 hex', `/tx/detail?hash=${HASH}0`, 'hash', BAD],
  ['hash non-hex', `/tx/detail?hash=${HASH.slice(1)}g`, 'hash', BAD],
  ['hash 0x-prefixed', `/tx/detail?hash=0x${HASH.slice(2)}`, 'hash', BAD],
  ['hash empty', '/tx/detail?hash=', 'hash', BAD],
  // h
  ['h text', '/block/detail?h=latest', 'h', BAD],
  ['h fractional', '/block/detail?h=4820298.0', 'h', BAD],
  ['h 63 hex', `/block/detail?h=${HASH.slice(1)}`, 'h', BAD],
  ['h negative', '/block/detail?h=-3', 'h', BAD],
  // token / contract
  ['token and contract both', `/token/tx/list?token=NAX&contract=${ADDR}`, 'token', BAD],
  ['token and contract both (holders)', `/token/holders?contract=${ADDR}&token=NAX`, 'contract', BAD],
  ['neither token nor contract', '/token/tx/list?page=1', 'token', MISSING],
  ['neither token nor contract (holders)', '/token/holders', 'contract', MISSING],
  ['token with bad characters', '/token/detail?token=NA%20X', 'token', BAD],
  // missing required parameters
  ['missing hash', '/tx/detail', 'hash', MISSING],
  ['missing h', '/block/detail?height=5', 'h', MISSING],
  ['missing address (address/info)', '/address/info', 'address', MISSING],
  ['missing address (tx/nrc20)', '/tx/nrc20?page=1', 'address', MISSING],
  ['missing address (tx/listByAddress)', '/tx/listByAddress', 'address', MISSING],
  ['missing address (nax/profits)', '/nax/profits', 'address', MISSING],
  ['missing token', '/token/detail', 'token', MISSING],
  // duplicates
  ['duplicated page', '/tx/list?page=1&page=1', 'page', DUPLICATE],
  ['duplicated page, different values', '/tx/list?page=1&page=2', 'page', DUPLICATE],
  ['duplicated hash', `/tx/detail?hash=${HASH}&hash=${HASH}`, 'hash', DUPLICATE],
  ['duplicated via encoding', '/block/list?page=2&%70age=2', 'page', DUPLICATE],
  // is_nrc20
  ['is_nrc20 yes', `/tx/listByAddress?address=${ADDR}&is_nrc20=yes`, 'is_nrc20', BAD],
  ['is_nrc20 2', `/tx/listByAddress?address=${ADDR}&is_nrc20=2`, 'is_nrc20', BAD],
  // control characters and broken encodings
  ['NUL in a value', '/tx/list?page=1%00', 'page', BAD],
  ['LF in a value', `/address/info?address=${ADDR}%0A`, 'address', BAD],
  ['DEL in a value', '/tx/detail?hash=%7F', 'hash', BAD],
  ['CR/LF in an unknown param value', '/tx/list?foo=a%0D%0ASet-Cookie:%20x=1', 'foo', BAD],
  ['malformed percent-encoding', '/tx/list?page=%ZZ', 'page', BAD],
  ['truncated percent-encoding', '/tx/list?page=1%2', 'page', BAD],
];

describe('validation errors: 400 envelope, no upstream request', () => {
  let env: Env;
  let baseline = 0;
  beforeAll(async () => {
    env = await startEnv();
    baseline = env.count();
  });
  afterAll(async () => {
    await env.close();
  });

  it.each(cases)('%s → 400 naming %s', async (_label, url, param, code) => {
    const before = env.count();
    const g = await get(env.base, url);
    expect(g.status, g.text).toBe(400);
    expect(g.header('content-type')).toMatch(/^application\/json/);
    expect(g.header('cache-control')).toBe('no-store');
    expect(g.header('access-control-allow-origin')).toBe('*');
    const e = envelope(g);
    expect(Object.keys(e).sort()).toEqual(['code', 'data', 'msg']);
    expect(e.code).not.toBe(0);
    expect(e.code).toBe(code);
    expect(e.data).toBeNull();
    expect(typeof e.msg).toBe('string');
    expect(e.msg).toContain(param);
    // The echo of a client value never carries control characters into the message.
    expect(/[\u0000-\u001f\u007f]/.test(e.msg)).toBe(false);
    expect(env.count()).toBe(before);
  });

  it('HEAD of an invalid request is a 400 without body and without upstream request', async () => {
    const before = env.count();
    const g = await get(env.base, '/tx/list?page=0', { method: 'HEAD' });
    expect(g.status).toBe(400);
    expect(g.raw.length).toBe(0);
    expect(env.count()).toBe(before);
  });

  it('upper bounds are inclusive and accepted: page_size=100, days=365, block_height=0', async () => {
    for (const url of [
      '/tx/list?page_size=100',
      '/tx/count/history?days=365',
      '/address/count/history?days=1',
      '/tx/list?block_height=0',
      '/block/detail?h=0',
    ]) {
      const g = await get(env.base, url);
      expect(g.status, `${url}: ${g.text.slice(0, 200)}`).not.toBe(400);
    }
  });

  it('made no upstream request for any invalid request', () => {
    // Only the accepted requests of the previous test reached the upstream.
    expect(env.up.requests.slice(0).filter((r) => r.url !== '/block/max').length).toBe(5);
    expect(baseline).toBeGreaterThanOrEqual(1);
  });
});

describe('validation limits follow the configuration', () => {
  it('page_size above a configured maxPageSize is rejected, below accepted', async () => {
    const env = await startEnv({ patch: { limits: { maxPageSize: 50 } } });
    try {
      const before = env.count();
      const bad = await get(env.base, '/block/list?page_size=51');
      expect(bad.status).toBe(400);
      expect(envelope(bad).msg).toContain('page_size');
      expect(envelope(bad).msg).toContain('50');
      expect(env.count()).toBe(before);
      const ok = await get(env.base, '/block/list?page_size=50');
      expect(ok.status).toBe(200);
    } finally {
      await env.close();
    }
  });
});
