/**
 * Limiter semantics on a fake clock, no Redis: budgets per IP and per API key,
 * refill and retry times, allowlist (IPv4, IPv6 /64, names), unknown keys,
 * costs above one, and the bound on buckets held.
 */
import { describe, expect, it } from 'vitest';
import { RateLimiter, UNKNOWN_API_KEY } from '../../src/ratelimit/limiter.js';
import type { ApiKeyConfig } from '../../src/config/types.js';
import { sha256Hex } from '../../src/ratelimit/api-keys.js';
import { AddressList } from '../../src/common/address-list.js';
import { clientIdentity } from '../../src/common/client-identity.js';
import { fakeClock } from '../helpers/clock.js';

const PARTNER = 'partner-secret-0123456789';
const HASHED = 'hashed-secret-abcdefghijk';

function make(
  opts: { max?: number; windowMs?: number; allow?: string[]; keys?: ApiKeyConfig[]; maxBuckets?: number } = {},
) {
  const clock = fakeClock();
  const limiter = new RateLimiter({
    config: { enabled: true, max: opts.max ?? 3, windowMs: opts.windowMs ?? 60_000 },
    allow: opts.allow ?? [],
    apiKeys: opts.keys ?? [],
    redis: null,
    clock: clock.now,
    ...(opts.maxBuckets !== undefined ? { maxBuckets: opts.maxBuckets } : {}),
  });
  return { limiter, clock };
}

const takeN = (l: RateLimiter, key: string, n: number): number[] => Array.from({ length: n }, () => l.take(key));

describe('RateLimiter', () => {
  it('gives each IP its own budget and refills it over the window', () => {
    const { limiter, clock } = make({ max: 3, windowMs: 60_000 });
    const a = limiter.clientKey('10.0.0.1', undefined);
    const b = limiter.clientKey('10.0.0.2', undefined);
    expect(takeN(limiter, a, 3)).toEqual([0, 0, 0]);
    // The 4th waits for one token: window / max = 20 s.
    expect(limiter.take(a)).toBe(20_000);
    expect(limiter.take(b)).toBe(0);
    clock.advance(19_999);
    expect(limiter.take(a)).toBe(1);
    clock.advance(1);
    expect(limiter.take(a)).toBe(0);
    expect(limiter.take(a)).toBe(20_000);
    // A refused request is not charged: the retry time does not grow.
    expect(limiter.take(a)).toBe(20_000);
    clock.advance(10 * 60_000);
    expect(takeN(limiter, a, 4)).toEqual([0, 0, 0, 20_000]); // never above the budget after idling
  });

  it('charges a cost of several units at once, and refuses it whole', () => {
    const { limiter } = make({ max: 10, windowMs: 10_000 });
    const k = limiter.clientKey('10.0.0.1', undefined);
    expect(limiter.take(k, 7)).toBe(0);
    expect(limiter.take(k, 5)).toBe(2000); // 3 left, 2 missing, 1 token / s
    expect(limiter.take(k, 3)).toBe(0);
    expect(limiter.take(k, 11)).toBeGreaterThan(10_000); // above the budget: never admitted
  });

  it('counts an API key per key, whatever the IP, with its own budget', () => {
    const { limiter } = make({ max: 2, keys: [{ name: 'explorer', key: PARTNER, max: 5 }] });
    const fromA = limiter.clientKey('10.0.0.1', PARTNER);
    const fromB = limiter.clientKey('10.0.0.2', PARTNER);
    expect(fromA).toBe('key:explorer');
    expect(fromB).toBe(fromA);
    expect([...takeN(limiter, fromA, 3), ...takeN(limiter, fromB, 2)]).toEqual([0, 0, 0, 0, 0]);
    expect(limiter.take(fromB)).toBeGreaterThan(0);
    // The IPs themselves keep their own (default) budgets.
    expect(takeN(limiter, limiter.clientKey('10.0.0.1', undefined), 3)).toEqual([0, 0, 30_000]);
    expect(limiter.limitOf(fromA)).toBe(5);
    expect(limiter.apiKey(fromA)?.name).toBe('explorer');
  });

  it('finds keys configured by their SHA-256; anything else is an unknown key', () => {
    const { limiter } = make({
      keys: [
        { name: 'p1', key: PARTNER, max: 5 },
        { name: 'p2', sha256: sha256Hex(HASHED), max: 5 },
      ],
    });
    expect(limiter.clientKey('10.0.0.1', HASHED)).toBe('key:p2');
    expect(limiter.clientKey('10.0.0.1', 'nope-nope-nope-nope')).toBe(UNKNOWN_API_KEY);
    expect(limiter.clientKey('10.0.0.1', '')).toBe(UNKNOWN_API_KEY);
    expect(limiter.clientKey('10.0.0.1', [PARTNER, PARTNER])).toBe(UNKNOWN_API_KEY);
    expect(limiter.clientKey('10.0.0.1', sha256Hex(HASHED))).toBe(UNKNOWN_API_KEY); // the digest is not a key
  });

  it('never limits allowlisted IPs and CIDRs (IPv4, IPv6, IPv4-mapped, named ranges)', () => {
    const { limiter } = make({ max: 1, allow: ['192.0.2.0/24', '2001:db8:1::/48', '203.0.113.7', 'loopback'] });
    for (const ip of ['192.0.2.9', '::ffff:192.0.2.10', '2001:db8:1:2::5', '203.0.113.7', '127.0.0.1', '::1']) {
      const k = limiter.clientKey(ip, undefined);
      expect(takeN(limiter, k, 5), ip).toEqual([0, 0, 0, 0, 0]);
    }
    for (const ip of ['192.0.3.1', '2001:db8:2::1', '203.0.113.8']) {
      const k = limiter.clientKey(ip, undefined);
      expect(takeN(limiter, k, 2), ip).toEqual([0, 60_000]);
    }
  });

  it('groups IPv6 clients per /64 and maps IPv4-mapped addresses to IPv4', () => {
    expect(clientIdentity('2001:db8:a:b:1::1')).toBe(clientIdentity('2001:db8:a:b:ffff::2'));
    expect(clientIdentity('2001:db8:a:b::1')).not.toBe(clientIdentity('2001:db8:a:c::1'));
    expect(clientIdentity('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(clientIdentity('10.1.2.3')).toBe('10.1.2.3');
    const list = new AddressList(['10.0.0.0/8', 'fe80::/10']);
    expect(list.has('10.200.0.1')).toBe(true);
    expect(list.has('11.0.0.1')).toBe(false);
    expect(list.has('fe80::1%eth0')).toBe(true);
    expect(list.has('fec0::1')).toBe(false);
  });

  it('holds a bounded number of buckets, dropping idle ones first', () => {
    const { limiter, clock } = make({ max: 2, windowMs: 1000, maxBuckets: 100 });
    const busy = limiter.clientKey('10.9.9.9', undefined);
    expect(takeN(limiter, busy, 2)).toEqual([0, 0]);
    for (let i = 0; i < 1000; i++) limiter.take(`10.0.${i >> 8}.${i & 255}`);
    expect(limiter.buckets).toBeLessThanOrEqual(100);
    clock.advance(1000); // all idle a whole window: full again, droppable
    for (let i = 0; i < 50; i++) limiter.take(`10.1.0.${i}`);
    expect(limiter.buckets).toBeLessThanOrEqual(100);
  });
});
