import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/catalogue/index.js';
import { DEFAULT_POLICIES } from '../../src/catalogue/policies.js';
import { defaultConfig } from '../../src/config/defaults.js';
import { PAGES } from '../../src/page-table/defaults.js';
import { compilePages } from '../../src/page-table/plan.js';
import { purgeHorizonMs } from '../../src/purge/build.js';

describe('Catalogue.setPolicies (a reload)', () => {
  it('rewrites each definition in place: requests, page parts and the purge horizon see the new policy', () => {
    const catalogue = buildCatalogue({ 'block/max': { ttlMs: 1000 } });
    const def = catalogue.get('block/max');
    // A page's parts are the catalogue's definitions.
    const part = compilePages(PAGES, {}, catalogue).get('block')!.parts[0]!;
    const inv = defaultConfig().invalidation;
    const before = purgeHorizonMs(catalogue, inv);
    const day = 24 * 3600 * 1000;

    catalogue.setPolicies({ 'block/max': { sieMs: 30 * day } });
    expect(catalogue.get('block/max')).toBe(def);
    expect(part.endpoint).toBe(catalogue.get(part.endpoint.name));
    // The override not repeated is dropped: back to the module's default.
    expect(def.policy.ttlMs).toBe(DEFAULT_POLICIES['block/max'].ttlMs);
    expect(def.policy.sieMs).toBe(30 * day);
    expect(purgeHorizonMs(catalogue, inv)).toBeGreaterThan(before);
    // The modules' own defaults are untouched.
    expect(DEFAULT_POLICIES['block/max'].sieMs).not.toBe(30 * day);
  });
});
