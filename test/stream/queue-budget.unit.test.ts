/**
 * QueueBudget on its own: the largest holders go first, the asker
 * only when it holds the most; the total never passes the bound.
 */
import { describe, expect, it } from 'vitest';
import { QueueBudget, type Queued } from '../../src/stream/queue-budget.js';

function holders(
  budget: () => QueueBudget,
  sizes: number[],
): (Queued & { dropped: boolean; hold(n: number): boolean })[] {
  return sizes.map((size) => {
    const q = {
      queuedBytes: 0,
      dropped: false,
      drop() {
        budget().give(q.queuedBytes);
        q.queuedBytes = 0;
        q.dropped = true;
      },
      hold(n: number) {
        if (!budget().take(n, q)) return false;
        q.queuedBytes += n;
        return true;
      },
    };
    q.hold(size);
    return q;
  });
}

describe('QueueBudget', () => {
  it('makes room by dropping the holders with more than the asker, largest first', () => {
    let qs: ReturnType<typeof holders> = [];
    const b = new QueueBudget(1000, () => qs);
    qs = holders(() => b, [300, 500, 100]);
    expect(b.used).toBe(900);
    // 250 more for the 100-byte holder: the 500 goes, the 300 stays.
    expect(qs[2]!.hold(250)).toBe(true);
    expect(qs.map((q) => q.dropped)).toEqual([false, true, false]);
    expect(b.used).toBe(650);
    // The 350-byte holder now holds the most: asking for more than fits, it is refused itself.
    expect(qs[2]!.hold(400)).toBe(false);
    expect(qs[0]!.dropped).toBe(false);
    expect(b.used).toBe(650);
    expect(b.used).toBeLessThanOrEqual(1000);
  });
});
