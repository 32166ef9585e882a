import { describe, expect, it } from 'vitest';
import { Doorkeeper } from '../../src/cache/admission.js';

describe('Doorkeeper (admission of Redis hits into memory)', () => {
  it('refuses a first read and admits the second', () => {
    const verdicts: boolean[] = [];
    const d = new Doorkeeper({ window: 4, onVerdict: (p) => verdicts.push(p) });
    expect(d.admit('a')).toBe(false);
    expect(d.admit('b')).toBe(false);
    expect(d.admit('a')).toBe(true);
    expect(d.admit('a')).toBe(true);
    expect(verdicts).toEqual([false, false, true, true]);
  });

  it('remembers a key for one to two windows of other first reads, then forgets it (bounded)', () => {
    const d = new Doorkeeper({ window: 3 });
    d.admit('k');
    for (const x of ['x1', 'x2', 'x3', 'x4']) expect(d.admit(x)).toBe(false);
    // 'k' is in the previous generation now: still within the window.
    expect(d.admit('k')).toBe(true);
    const e = new Doorkeeper({ window: 3 });
    e.admit('k');
    for (let i = 0; i < 6; i++) expect(e.admit(`y${i}`)).toBe(false);
    // Two generations later: forgotten, a first read again.
    expect(e.admit('k')).toBe(false);
  });

  it('a scan (every key once) admits nothing', () => {
    const d = new Doorkeeper({ window: 100 });
    let admitted = 0;
    for (let i = 0; i < 10_000; i++) if (d.admit(`block/detail?h=${i}`)) admitted++;
    // Only 30-bit hash collisions within the window could admit (none expected at this size).
    expect(admitted).toBe(0);
  });

  it('rejects a window that is not a positive integer', () => {
    expect(() => new Doorkeeper({ window: 0 })).toThrow(RangeError);
    expect(() => new Doorkeeper({ window: 1.5 })).toThrow(RangeError);
  });
});
