import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/catalogue/index.js';
import { applyOverrides, DEFAULT_POLICIES } from '../../src/catalogue/policies.js';
import { ENDPOINT_NAMES } from '../../src/catalogue/types.js';

describe('catalogue', () => {
  const cat = buildCatalogue();

  it('has the 22 endpoints, each with a policy', () => {
    expect(cat.all().map((e) => e.name)).toEqual([...ENDPOINT_NAMES]);
    for (const e of cat.all()) {
      expect(e.policy.sieMs).toBe(86_400_000);
      expect(e.policy.negativeTtlMs).toBe(1000);
      expect(e.policy.swrMs).toBeGreaterThanOrEqual(1000);
    }
  });

  it('matches exact paths only', () => {
    expect(cat.match('/tx/list')?.name).toBe('tx/list');
    expect(cat.match('/tx/list/pending')?.name).toBe('tx/list/pending');
    expect(cat.match('/tx/list/')).toBeUndefined();
    expect(cat.match('tx/list')).toBeUndefined();
    expect(cat.match('/TX/LIST')).toBeUndefined();
    expect(cat.match('/nope')).toBeUndefined();
  });

  it('policy guidance', () => {
    expect(cat.get('block/max').policy.ttlMs).toBe(1000);
    expect(cat.get('tx/list/pending').policy.ttlMs).toBe(1000);
    expect(cat.get('block/detail').policy.finalTtlMs).toBe(86_400_000);
    expect(cat.get('tx/detail').policy.volatileTtlMs).toBe(1000);
    expect(cat.get('token/list').policy.ttlMs).toBe(600_000);
    for (const n of [
      'tx/list',
      'block/list',
      'tx/listByAddress',
      'tx/nrc20',
      'token/tx/list',
      'address/info',
      'chain/summary',
    ] as const)
      expect(cat.get(n).policy.invalidateOnHead, n).toBe(true);
  });

  it('applies overrides field by field without touching the defaults', () => {
    const c = buildCatalogue({ 'block/detail': { finalTtlMs: 5 }, 'tx/detail': { negativeTtlMs: 0 } });
    expect(c.get('block/detail').policy).toEqual({ ...DEFAULT_POLICIES['block/detail'], finalTtlMs: 5 });
    expect(c.get('tx/detail').policy.negativeTtlMs).toBe(0);
    expect(DEFAULT_POLICIES['block/detail'].finalTtlMs).toBe(86_400_000);
    expect(applyOverrides(DEFAULT_POLICIES, { 'block/max': { ttlMs: undefined } })['block/max'].ttlMs).toBe(1000);
  });
});
