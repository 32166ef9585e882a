import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIELDS } from '../../src/config/fields.js';
import { configTable, helpText } from '../../src/config/help.js';

describe('help and reference', () => {
  it('--help lists every variable with its default', () => {
    const text = helpText();
    for (const f of FIELDS) expect(text, f.env).toContain(`  ${f.env}  (file: ${f.key})`);
    expect(text).toContain('CONFIG_FILE');
    expect(text).toContain('default: 256MiB');
    expect(text).toContain('default: http://localhost:$PORT');
  });

  it('every Config leaf has a field', () => {
    const keys = new Set(FIELDS.map((f) => f.key));
    for (const k of [
      'port',
      'limits.maxDays',
      'upstream.maxBodyBytes',
      'redis.leaseMs',
      'rateLimit.windowMs',
      'simulator.seed',
    ])
      expect(keys.has(k), k).toBe(true);
    expect(keys.size).toBe(FIELDS.length);
    expect(new Set(FIELDS.map((f) => f.env)).size).toBe(FIELDS.length);
  });

  it('docs/configuration.md holds every row of the current configuration table', () => {
    const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    for (const row of configTable().split('\n').slice(2)) expect(doc).toContain(row);
  });
});
