import { describe, expect, it } from 'vitest';
import { ADDR, canon, HASH, keyOf } from './helpers.js';

describe('canonical keys', () => {
  it('order, encoding, defaults and unknown parameters do not matter', () => {
    const k = keyOf('tx/list', 'page=1&page_size=20');
    expect(k).toBe('tx/list?page=1&page_size=20');
    for (const q of [
      '',
      'page_size=20&page=1',
      'page=01',
      'pa%67e=1',
      'page=%31&page_size=2%30',
      'foo=bar',
      'page=1&utm=x&_=123',
      '&&page=1&',
    ])
      expect(keyOf('tx/list', q), q).toBe(k);
  });

  it('defaults of days differ by endpoint', () => {
    expect(keyOf('tx/count/history', '')).toBe('tx/count/history?days=15');
    expect(keyOf('address/count/history', '')).toBe('address/count/history?days=30');
  });

  it('no params: no question mark', () => {
    expect(keyOf('block/max', '')).toBe('block/max');
    expect(keyOf('block/max', 'x=1')).toBe('block/max');
    expect(canon('chain/summary', '').upstreamPath).toBe('/chain/summary');
  });

  it('upstream path carries the canonical query only', () => {
    const r = canon('tx/listByAddress', `is_nrc20=1&address=${ADDR}&cookie=x`);
    expect(r.key).toBe(`tx/listByAddress?address=${ADDR}&is_nrc20=true&page=1&page_size=20`);
    expect(r.upstreamPath).toBe(`/${r.key}`);
    expect(r.params.get('is_nrc20')).toBe('true');
  });

  it('equivalent spellings share a key: hash case, h, flags', () => {
    expect(keyOf('tx/detail', `hash=${HASH.toUpperCase()}`)).toBe(keyOf('tx/detail', `hash=${HASH}`));
    expect(keyOf('block/detail', 'h=0042')).toBe('block/detail?h=42');
    expect(keyOf('tx/listByAddress', `address=${ADDR}&is_nrc20=true`)).toBe(
      keyOf('tx/listByAddress', `address=${ADDR}&is_nrc20=1`),
    );
  });

  it('distinct values give distinct keys', () => {
    const keys = new Set([
      keyOf('tx/list', ''),
      keyOf('tx/list', 'page=2'),
      keyOf('tx/list', 'page_size=21'),
      keyOf('tx/list', 'block_height=5'),
      keyOf('tx/listByAddress', `address=${ADDR}`),
      keyOf('tx/listByAddress', `address=${ADDR}&is_nrc20=false`),
      keyOf('tx/listByAddress', `address=${ADDR}&is_nrc20=true`),
      keyOf('token/holders', 'token=NAX'),
      keyOf('token/holders', 'token=nax'),
      keyOf('token/holders', `contract=${ADDR}`),
    ]);
    expect(keys.size).toBe(10);
  });

  it('+ is a space (and a space is invalid in a token name); %2B is a plus', () => {
    expect(() => canon('token/detail', 'token=a+b')).toThrow(/token/);
    expect(keyOf('token/detail', 'token=%4E%41%58')).toBe('token/detail?token=NAX');
  });
});
