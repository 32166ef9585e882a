import { describe, expect, it } from 'vitest';
import { freshnessOf } from '../../src/catalogue/classify.js';
import { canon, chainAt, HASH } from './helpers.js';

describe('freshnessOf', () => {
  const chain = chainAt(1000, 990);

  it("'any' for final blocks and slow-moving data", () => {
    expect(freshnessOf(canon('block/detail', 'h=990'), chain)).toBe('any');
    expect(freshnessOf(canon('tx/list', 'block_height=12'), chain)).toBe('any');
    for (const [n, q] of [
      ['token/list', ''],
      ['token/detail', 'token=NAX'],
      ['tx/count/history', ''],
      ['address/count/history', ''],
      ['nax/history', ''],
    ] as const)
      expect(freshnessOf(canon(n, q), chain), n).toBe('any');
  });

  it("'head' for everything else", () => {
    expect(freshnessOf(canon('block/detail', 'h=991'), chain)).toBe('head');
    expect(freshnessOf(canon('block/detail', `h=${HASH}`), chain)).toBe('head');
    expect(freshnessOf(canon('tx/list', ''), chain)).toBe('head');
    expect(freshnessOf(canon('tx/list', 'block_height=995'), chain)).toBe('head');
    expect(freshnessOf(canon('block/detail', 'h=1'), chainAt(null, null))).toBe('head');
    expect(freshnessOf(canon('block/max', ''), chain)).toBe('head');
  });
});
