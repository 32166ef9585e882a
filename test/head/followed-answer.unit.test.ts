/**
 * A follower makes the leader's shared probe answer its head entry at the
 * head the leader's heads message names. A replica that followed (its
 * upstreams' heads learned from the bus) and then took the lease sent, in its
 * first heartbeats, the current head with its own last probe answer, which
 * could show a head minutes old: a cold follower installed that body as the
 * current head (seen in the rolling-restart bench: `block/max` 18 blocks
 * behind). An answer is installed only at the head it shows.
 */
import { describe, expect, it } from 'vitest';
import { followedAnswer } from '../../src/upstream/prober.js';

const body = (height: number): string => JSON.stringify({ code: 0, msg: 'success', data: { height } });

describe("a leader's shared head answer", () => {
  it('is taken at the head it shows', () => {
    const res = followedAnswer('u0', body(120), 120);
    expect(res?.head).toBe(120);
    expect(res?.upstream).toBe('u0');
    expect(res?.json).toEqual({ code: 0, msg: 'success', data: { height: 120 } });
  });

  it('is refused at a head it does not show (an older answer sent with a newer head)', () => {
    expect(followedAnswer('u0', body(102), 120)).toBeNull();
    expect(followedAnswer('u0', body(121), 120)).toBeNull();
  });

  it('is refused when it is not a JSON object with a height', () => {
    expect(followedAnswer('u0', 'not json', 120)).toBeNull();
    expect(followedAnswer('u0', '[1]', 120)).toBeNull();
    expect(followedAnswer('u0', JSON.stringify({ code: 0, data: {} }), 120)).toBeNull();
  });
});
