/**
 * A reload's new rate-limit settings applied in place (RateLimiter.reconfigure):
 * each client keeps its bucket with the same share of the new budget left;
 * new API keys and a new allowlist take effect at once.
 */
import { describe, expect, it } from 'vitest';
import { RateLimiter, UNKNOWN_API_KEY } from '../../src/ratelimit/limiter.js';
import { fakeClock } from '../helpers/clock.js';

const KEY = 'partner-secret-0123456789';

function make(max: number) {
  const clock = fakeClock();
  const limiter = new RateLimiter({
    config: { enabled: true, max, windowMs: 60_000 },
    allow: [],
    apiKeys: [],
    redis: null,
    clock: clock.now,
    missBudget: 2,
  });
  return { limiter, clock };
}

describe('RateLimiter.reconfigure', () => {
  it('a lower limit: a client that spent half its budget keeps half of the new one', () => {
    const { limiter } = make(10);
    const ip = limiter.clientKey('10.0.0.1', undefined);
    for (let i = 0; i < 5; i++) expect(limiter.take(ip)).toBe(0);
    limiter.reconfigure({ config: { enabled: true, max: 4, windowMs: 60_000 }, allow: [], apiKeys: [], missBudget: 1 });
    expect(limiter.max).toBe(4);
    expect([limiter.take(ip), limiter.take(ip)]).toEqual([0, 0]);
    expect(limiter.take(ip)).toBeGreaterThan(0);
    // A new client gets the new budget whole.
    const other = limiter.clientKey('10.0.0.2', undefined);
    expect([0, 1, 2, 3].map(() => limiter.take(other))).toEqual([0, 0, 0, 0]);
    expect(limiter.take(other)).toBeGreaterThan(0);
    // The miss budget too.
    expect(limiter.takeMiss(other)).toBe(0);
    expect(limiter.takeMiss(other)).toBeGreaterThan(0);
  });

  it('a new API key and a new allowlist take effect at once', () => {
    const { limiter } = make(1);
    expect(limiter.clientKey('10.0.0.1', KEY)).toBe(UNKNOWN_API_KEY);
    const ip = limiter.clientKey('10.0.0.9', undefined);
    expect(limiter.take(ip)).toBe(0);
    expect(limiter.take(ip)).toBeGreaterThan(0);
    limiter.reconfigure({
      config: { enabled: true, max: 1, windowMs: 60_000 },
      allow: ['10.0.0.9'],
      apiKeys: [{ name: 'partner', key: KEY, max: 50 }],
    });
    const key = limiter.clientKey('10.0.0.1', KEY);
    expect(key).not.toBe(UNKNOWN_API_KEY);
    expect(limiter.limitOf(key)).toBe(50);
    for (let i = 0; i < 5; i++) expect(limiter.take(ip)).toBe(0);
  });
});
