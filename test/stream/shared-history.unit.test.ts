/**
 * The fleet's shared head history as a replica reads it: per height the event
 * recorded since the last rebase below it, rebases remembered; and merged with
 * the replica's own newer events.
 */
import { describe, expect, it } from 'vitest';
import { EventHistory } from '../../src/stream/history.js';
import { historyOf, merged, reaches } from '../../src/stream/shared-history.js';

const ev = (h: number, v = `e${h}`): string[] => ['h', String(h), 'k', 'e', 'v', v];
const rb = (h: number, from: number): string[] => ['h', String(h), 'k', 'r', 'v', String(from)];
const frames = (h: EventHistory): string[] => h.after(-1).map((e) => `${e.height}:${e.frame.toString()}`);

describe('historyOf', () => {
  it('keeps the first event of a height, in height order whatever the order written', () => {
    const h = historyOf([ev(10), ev(12), ev(11), ev(12, 'late')]);
    expect(frames(h)).toEqual(['10:e10', '11:e11', '12:e12']);
  });

  it('a rebase drops the events above it; the heights made again are kept; the rebase is remembered', () => {
    const h = historyOf([ev(10), ev(11), ev(12), rb(10, 12), ev(11, 'new11'), ev(12, 'new12')]);
    expect(frames(h)).toEqual(['10:e10', '11:new11', '12:new12']);
    expect(h.rebases.rebaseFor(12)).toEqual({ height: 10, from: 12 });
  });

  it('skips entries without a height', () => {
    expect(frames(historyOf([['h', 'x', 'k', 'e', 'v', 'bad'], ev(3)]))).toEqual(['3:e3']);
  });
});

describe('merged and reaches', () => {
  it("the shared history, then this replica's events above it", () => {
    const local = new EventHistory(10);
    for (const h of [12, 13, 14]) local.push({ height: h, frame: Buffer.from(`own${h}`) });
    const m = merged(historyOf([ev(10), ev(11), ev(12)]), local);
    expect(frames(m)).toEqual(['10:e10', '11:e11', '12:e12', '13:own13', '14:own14']);
    expect(reaches(local, 11)).toBe(true);
    expect(reaches(local, 10)).toBe(false);
    expect(reaches(new EventHistory(10), 10)).toBe(false);
  });
});
