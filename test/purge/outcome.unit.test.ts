/** The answer of a purge: 200 when it reached everything it should, else 503 5034 naming what failed. */
import { describe, expect, it } from 'vitest';
import { purgeReply } from '../../src/purge/outcome.js';
import type { PurgeAnswer, PurgeFailure } from '../../src/purge/purger.js';

const answer = (over: Partial<PurgeAnswer> = {}): PurgeAnswer => ({
  kind: 'all',
  target: '*',
  mode: 'hard',
  at: 1,
  purged: 3,
  memory: 3,
  redis: 0,
  reach: 'fleet',
  fleet: { stored: true, published: true },
  ...over,
});
const reply = (failure: PurgeFailure, over: Partial<PurgeAnswer> = {}) => {
  const r = purgeReply({ answer: answer(over), failure });
  return { status: r.status, body: JSON.parse(r.body.toString()) as { code: number; msg: string; data: unknown } };
};

describe('purgeReply', () => {
  it('200 success when nothing failed, whatever the reach', () => {
    for (const reach of ['process', 'workers', 'fleet'] as const) {
      const r = reply(null, { reach, fleet: reach === 'fleet' ? { stored: true, published: true } : null });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ code: 0, msg: 'success', data: { reach } });
    }
  });

  it.each([
    [{ stored: false, published: false }, /Redis took neither/],
    [{ stored: true, published: false }, /running replicas were not told/],
    [{ stored: false, published: true }, /did not store the mark/],
    ['workers' as const, /other workers were not told/],
  ])('503 5034 for %j, with what was done here', (failure, words) => {
    const r = reply(failure);
    expect(r.status).toBe(503);
    expect(r.body.code).toBe(5034);
    expect(r.body.msg).toMatch(/^purge applied on this replica, not across the fleet: /);
    expect(r.body.msg).toMatch(words);
    expect(r.body.data).toMatchObject({ memory: 3, purged: 3 });
  });
});
