/**
 * The primary's memory of which worker last filled a key (src/cluster/fillers.ts):
 * bounded, the least recently filled key dropped first, a leaving worker's keys forgotten.
 */
import { describe, expect, it } from 'vitest';
import { Fillers } from '../../src/cluster/fillers.js';

describe('fillers', () => {
  it('keeps at most its bound, dropping the least recently filled key; forgets a leaving worker', () => {
    const f = new Fillers(3);
    f.filled('a', 1);
    f.filled('b', 2);
    f.filled('c', 1);
    f.filled('a', 2); // filled again: now the newest
    f.filled('d', 1);
    expect(['a', 'b', 'c', 'd'].map((k) => f.of(k))).toEqual([2, undefined, 1, 1]);
    f.leave(1);
    expect(['a', 'c', 'd'].map((k) => f.of(k))).toEqual([2, undefined, undefined]);
    f.forget('a');
    expect(f.of('a')).toBeUndefined();
  });
});
