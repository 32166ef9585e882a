/** The circuit breaker's rules on a fake clock; the breaker inside the upstream pool is in breaker.test.ts. */
import { describe, expect, it } from 'vitest';
import { Breaker } from '../../src/common/breaker.js';
import { fakeClock } from '../helpers/clock.js';

describe('Breaker (unit, injected clock)', () => {
  it('opens after N consecutive failures; a success in between resets the count', () => {
    const clock = fakeClock();
    const b = new Breaker({ failures: 3, cooldownMs: 1000, clock: clock.now });
    b.failure('pass');
    b.failure('pass');
    b.success('pass');
    b.failure('pass');
    b.failure('pass');
    expect(b.state()).toBe('closed');
    b.failure('pass');
    expect(b.state()).toBe('open');
    expect(b.canPass()).toBe(false);
    expect(b.tryAcquire()).toBeNull();
  });

  it('half-opens after the cooldown and lets exactly one trial through; success closes', () => {
    const clock = fakeClock();
    const b = new Breaker({ failures: 1, cooldownMs: 1000, clock: clock.now });
    b.failure('pass');
    clock.advance(999);
    expect(b.state()).toBe('open');
    clock.advance(1);
    expect(b.state()).toBe('half-open');
    expect(b.tryAcquire()).toBe('trial');
    expect(b.canPass()).toBe(false);
    expect(b.tryAcquire()).toBeNull();
    b.success('trial');
    expect(b.state()).toBe('closed');
    expect(b.tryAcquire()).toBe('pass');
  });

  it('a failed trial reopens for a full cooldown; a released trial frees the slot', () => {
    const clock = fakeClock();
    const b = new Breaker({ failures: 1, cooldownMs: 1000, clock: clock.now });
    b.failure('pass');
    clock.advance(1000);
    const t = b.tryAcquire();
    expect(t).toBe('trial');
    b.failure(t!);
    expect(b.state()).toBe('open');
    clock.advance(1000);
    const t2 = b.tryAcquire();
    b.release(t2!);
    expect(b.state()).toBe('half-open');
    expect(b.tryAcquire()).toBe('trial');
  });

  it('a late success of a call let through before opening does not close it', () => {
    const clock = fakeClock();
    const b = new Breaker({ failures: 1, cooldownMs: 1000, clock: clock.now });
    const early = b.tryAcquire()!;
    b.failure('pass');
    b.success(early);
    expect(b.state()).toBe('open');
  });
});
