/**
 * The limiter's second table, the miss budget, on a fake clock: its own
 * budget per IP client beside the request budget, refill and wait times, a
 * miss given back, the allowlist never charged, off at 0; and the credits of
 * an API key taken, given back and announced (`remaining`).
 */
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/ratelimit/limiter.js';
import { fakeClock } from '../helpers/clock.js';

const KEY = 'partner-secret-0123456789';

function make(missBudget: number) {
  const clock = fakeClock();
  const limiter = new RateLimiter({
    config: { enabled: true, max: 100, windowMs: 60_000 },
    allow: ['10.9.9.9'],
    apiKeys: [{ name: 'p', key: KEY, max: 10 }],
    redis: null,
    clock: clock.now,
    missBudget,
  });
  return { limiter, clock };
}

describe('miss budget table', () => {
  it('counts misses per client apart from requests, refills, and takes a miss back', () => {
    const { limiter, clock } = make(2);
    const a = limiter.clientKey('10.0.0.1', undefined);
    expect([limiter.takeMiss(a), limiter.takeMiss(a)]).toEqual([0, 0]);
    expect(limiter.takeMiss(a)).toBe(30_000); // 2 per 60 s
    expect(limiter.take(a)).toBe(0); // the request budget is untouched
    expect(limiter.takeMiss(limiter.clientKey('10.0.0.2', undefined))).toBe(0);
    limiter.giveMiss(a);
    expect(limiter.takeMiss(a)).toBe(0);
    expect(limiter.takeMiss(a)).toBe(30_000);
    clock.advance(30_000);
    expect(limiter.takeMiss(a)).toBe(0);
    expect(limiter.missBuckets).toBe(2);
  });

  it('never charges the allowlist, and charges nobody at 0', () => {
    const { limiter } = make(1);
    const allowed = limiter.clientKey('10.9.9.9', undefined);
    for (let i = 0; i < 5; i++) expect(limiter.takeMiss(allowed)).toBe(0);
    const off = make(0).limiter;
    for (let i = 0; i < 5; i++) expect(off.takeMiss('10.0.0.1')).toBe(0);
    expect(off.missBuckets).toBe(0);
  });

  it('gives credits back to an API key and says what is left', () => {
    const { limiter, clock } = make(1);
    const k = limiter.clientKey('10.0.0.1', KEY);
    expect(limiter.remaining(k)).toBe(10);
    expect(limiter.take(k, 7)).toBe(0);
    expect(limiter.remaining(k)).toBe(3);
    expect(limiter.take(k, 5)).toBe(12_000); // 2 credits short at 10 per 60 s
    limiter.give(k, 5);
    expect(limiter.remaining(k)).toBe(8);
    limiter.give(k, 50);
    expect(limiter.remaining(k)).toBe(10); // never above the budget
    clock.advance(60_000);
    expect(limiter.remaining(k)).toBe(10);
  });
});
