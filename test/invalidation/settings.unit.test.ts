import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { errorsOf, tempFile } from '../config/helpers.js';

describe('invalidation settings', () => {
  it('defaults to precise invalidation without tag headers', () => {
    const c = loadConfig({});
    expect(c.invalidation.mode).toBe('precise');
    expect(c.invalidation.maxAgeMs).toBe(60_000);
    expect(c.cacheTagHeaders).toBe(false);
  });

  it('INVALIDATION_MODE=head selects the head rule; other values are refused by name', () => {
    expect(loadConfig({ INVALIDATION_MODE: 'head' }).invalidation.mode).toBe('head');
    expect(errorsOf({ INVALIDATION_MODE: 'tags' }).join('\n')).toMatch(/INVALIDATION_MODE/);
  });

  it('reads the file keys, with per-endpoint max ages checked against endpoint names', () => {
    const file = tempFile(
      '.json',
      JSON.stringify({
        invalidation: { mode: 'head', maxAgeMs: 5000, listMaxAgeMs: 5000, maxAgeByEndpoint: { 'address/info': 1000 } },
        cacheTagHeaders: true,
      }),
    );
    const c = loadConfig({ CONFIG_FILE: file });
    expect(c.invalidation).toMatchObject({
      mode: 'head',
      maxAgeMs: 5000,
      listMaxAgeMs: 5000,
      maxAgeByEndpoint: { 'address/info': 1000 },
    });
    expect(c.cacheTagHeaders).toBe(true);
    const bad = tempFile(
      '.json',
      JSON.stringify({ invalidation: { maxAgeByEndpoint: { 'no/such': 1, holders: -1 } } }),
    );
    const errs = errorsOf({ CONFIG_FILE: bad }).join('\n');
    expect(errs).toMatch(/maxAgeByEndpoint\.no\/such/);
    expect(errs).toMatch(/maxAgeByEndpoint\.holders/);
  });
});
