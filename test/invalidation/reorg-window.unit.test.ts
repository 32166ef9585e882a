import { describe, expect, it } from 'vitest';
import { addRows, changedHashes } from '../../src/invalidation/reorg-window.js';

describe('the reorg window', () => {
  it("adds a page's rows and says when one of them is final", () => {
    const into = new Map<number, string>();
    expect(addRows([{ height: 9, block_hash: 'a', is_finality: false }, null, { height: 8 }], into)).toBe(false);
    expect(addRows([{ height: 7, block_hash: 'b', is_finality: true }], into)).toBe(true);
    expect([...into]).toEqual([
      [9, 'a'],
      [7, 'b'],
    ]);
  });

  it('reads again the non-final heights whose hash changed or is unknown, oldest first; not the unwatched', () => {
    const recent = new Map([
      [12, 'x'],
      [11, 'y'],
      [10, 'z'],
      [9, 'w'],
    ]);
    const seen = new Map([
      [12, 'x'],
      [11, ''],
      [10, 'old'],
      [9, 'old'],
    ]);
    expect(changedHashes(recent, 9, (h) => seen.get(h))).toEqual([
      [10, 'z'],
      [11, 'y'],
    ]);
    expect(changedHashes(new Map([[13, 'q']]), null, (h) => seen.get(h))).toEqual([]);
  });
});
