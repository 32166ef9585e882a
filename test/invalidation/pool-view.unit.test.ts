import { describe, expect, it } from 'vitest';
import type { TouchedSet } from '../../src/chain/touched.js';
import { PoolView } from '../../src/invalidation/pool-view.js';

const set = (left: string[] | undefined, complete = true): TouchedSet => ({
  height: 1,
  blockHash: 'h',
  addresses: [],
  contracts: [],
  deployed: [],
  day: null,
  tokens: [],
  complete,
  ...(left !== undefined ? { left } : {}),
});

describe('PoolView', () => {
  it('holds what the reader saw enter the pool until the block it left with', () => {
    const v = new PoolView();
    v.pending({ hashes: ['AA', 'bb'], addresses: [], contracts: [] });
    expect(v.has('aa')).toBe(true);
    v.block(set(['aa']));
    expect(v.has('aa')).toBe(false);
    v.block(set(['bb'], false));
    expect(v.has('BB')).toBe(true);
    // A set that does not say which left: none is vouched for.
    v.block(set(undefined));
    expect(v.has('bb')).toBe(false);
  });
});
