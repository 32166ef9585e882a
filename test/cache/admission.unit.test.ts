import { describe, expect, it } from 'vitest';
import { MemoryAdmission } from '../../src/cache/admission.js';

describe('MemoryAdmission (TinyLFU: Redis hits into memory)', () => {
  it('refuses a first read and admits the second while memory has room', () => {
    const verdicts: boolean[] = [];
    const a = new MemoryAdmission({ window: 64, onVerdict: (p) => verdicts.push(p) });
    expect(a.admit('a')).toBe(false);
    expect(a.admit('b')).toBe(false);
    expect(a.admit('a')).toBe(true);
    expect(a.admit('a')).toBe(true);
    expect(verdicts).toEqual([false, false, true, true]);
  });

  it('asks for the victim only for a key read before (a first read costs no LRU walk)', () => {
    const a = new MemoryAdmission({ window: 64 });
    let asked = 0;
    const victim = (): string | null => {
      asked++;
      return null;
    };
    expect(a.admit('k', victim)).toBe(false);
    expect(asked).toBe(0);
    expect(a.admit('k', victim)).toBe(true);
    expect(asked).toBe(1);
  });

  it('a scan (every key once) admits nothing', () => {
    const a = new MemoryAdmission({ window: 1024 });
    let admitted = 0;
    for (let i = 0; i < 10_000; i++) if (a.admit(`block/detail?h=${i}`)) admitted++;
    // Only 30-bit hash collisions within the doorkeeper's window could admit (none expected).
    expect(admitted).toBe(0);
  });

  it('when memory is full, a key read as often as the entry it would evict stays out; read more, it gets in', () => {
    const a = new MemoryAdmission({ window: 1024 });
    for (let round = 0; round < 3; round++) {
      a.record('held'); // answered from memory
      const promoted = a.admit('candidate', () => 'held'); // read from Redis
      expect(promoted).toBe(false);
    }
    expect(a.frequency('held')).toBe(3);
    expect(a.frequency('candidate')).toBe(3);
    // Compared on the lookups before this read: 3 against 3 is a tie, 4 against 3 wins.
    expect(a.admit('candidate', () => 'held')).toBe(false);
    expect(a.admit('candidate', () => 'held')).toBe(true);
  });

  it('a cycle through more keys than memory holds does not churn memory', () => {
    // An LRU of 100 keys, 300 keys read in a cycle: what memory holds is hit, the rest read from Redis.
    const a = new MemoryAdmission({ window: 1024 });
    // Memory holds every third key, so the keys it holds and the others interleave in the cycle.
    const held: string[] = [];
    for (let i = 0; i < 300; i += 3) held.push(`k${i}`);
    const inMemory = new Set(held);
    let promotions = 0;
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 300; i++) {
        const key = `k${i}`;
        if (inMemory.has(key)) {
          a.record(key);
          held.splice(held.indexOf(key), 1);
          held.push(key);
          continue;
        }
        const victim = held[0] as string;
        if (a.admit(key, () => victim)) {
          promotions++;
          inMemory.delete(victim);
          held.shift();
          held.push(key);
          inMemory.add(key);
        }
      }
    }
    // The first round's ties are refused, and later rounds are ties too.
    expect(promotions).toBeLessThan(10);
  });

  it('the sketch forgets: counts halve after ten lookups per counter', () => {
    const a = new MemoryAdmission({ window: 16 });
    a.record('k');
    a.record('k');
    expect(a.frequency('k')).toBe(2);
    for (let i = 0; i < 16 * 10; i++) a.record(`other${i % 7}`);
    expect(a.frequency('k')).toBe(1);
  });

  it('the doorkeeper remembers a first read for one to two windows of other first reads, then forgets it', () => {
    const a = new MemoryAdmission({ window: 3 });
    a.admit('k');
    for (const x of ['x1', 'x2', 'x3', 'x4']) expect(a.admit(x)).toBe(false);
    expect(a.admit('k')).toBe(true); // in the previous generation: still within the window
    const b = new MemoryAdmission({ window: 3 });
    b.admit('k');
    for (let i = 0; i < 6; i++) expect(b.admit(`y${i}`)).toBe(false);
    expect(b.admit('k')).toBe(false); // two generations later: a first read again
  });

  it('counts stay within 4 bits', () => {
    const a = new MemoryAdmission({ window: 1024 });
    for (let i = 0; i < 40; i++) a.record('hot');
    expect(a.frequency('hot')).toBe(15);
  });

  it('rejects a window that is not a positive integer', () => {
    expect(() => new MemoryAdmission({ window: 0 })).toThrow(RangeError);
    expect(() => new MemoryAdmission({ window: 1.5 })).toThrow(RangeError);
  });
});
