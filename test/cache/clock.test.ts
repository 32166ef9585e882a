/**
 * The clock injected into startProxy drives every cache decision, the memory
 * tier's expiry included: with a clock far from real time (here: years in the
 * past, as a test or a replay would use), answers are still stored and hit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeClock } from '../helpers/clock.js';
import { fixture, get, startEnv, type Env } from '../helpers/proxy-kit.js';

describe('injected clock', () => {
  const clock = fakeClock(1_600_000_000_000); // September 2020
  let env: Env;
  beforeAll(async () => {
    env = await startEnv({ clock: clock.now });
  });
  afterAll(async () => {
    await env.close();
  });

  it('an answer fetched under the injected clock is stored and then hit', async () => {
    const url = '/token/detail?token=NAX';
    expect((await get(env.base, url)).header('x-cache')).toBe('MISS');
    const again = await get(env.base, url);
    expect(again.header('x-cache')).toBe('HIT');
    expect(env.count('token/detail')).toBe(1);
    expect(again.text).toBe(fixture('token/detail').body);
  });

  it('the memory tier expires entries on the injected clock, not on the real one', async () => {
    const url = '/chain/summary';
    await get(env.base, url);
    clock.advance(2 * 24 * 3600_000); // past every stale window
    const g = await get(env.base, url);
    expect(g.header('x-cache')).toBe('MISS');
    expect(env.count('chain/summary')).toBe(2);
  });
});
