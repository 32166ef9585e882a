import { describe, expect, it } from 'vitest';
import { ENDPOINT_NAMES as ENDPOINT_PATHS } from '../../src/endpoints/index.js';
import { schemaForEndpoint, validateRecord, Transaction, schema } from '../../src/schema/index.js';
import { FIXTURES } from './util.js';

describe('schemas match the recorded real-service responses', () => {
  it('covers all 22 endpoints', () => {
    expect(ENDPOINT_PATHS).toHaveLength(22);
    expect(new Set(FIXTURES.map((f) => f.path))).toEqual(new Set(ENDPOINT_PATHS));
  });

  for (const f of FIXTURES) {
    it(`fixture ${f.path}?${f.query} validates`, () => {
      const s = schemaForEndpoint(f.path);
      expect(s).toBeDefined();
      expect(validateRecord(s!, JSON.parse(f.body))).toEqual([]);
    });
  }

  it('reports missing, extra and mistyped fields', () => {
    const tx = JSON.parse(FIXTURES.find((f) => f.path === 'tx/list')!.body).data.list[0];
    delete tx.nonce;
    tx.extra = 1;
    tx.status = '1';
    const problems = validateRecord(Transaction, tx);
    expect(problems.some((p) => p.includes('nonce') && p.includes('missing'))).toBe(true);
    expect(problems.some((p) => p.includes('extra') && p.includes('unexpected'))).toBe(true);
    expect(problems.some((p) => p.includes('status') && p.includes('expected integer'))).toBe(true);
    expect(validateRecord(schema('X', { a: 'null|integer' }), { a: 1.5 })).toHaveLength(1);
  });

  it('schemaForEndpoint accepts slashes, queries and URLs', () => {
    expect(schemaForEndpoint('/tx/list?page=2')).toBe(schemaForEndpoint('tx/list'));
    expect(schemaForEndpoint('http://h:1/block/max')).toBe(schemaForEndpoint('block/max'));
    expect(schemaForEndpoint('nope')).toBeUndefined();
  });
});
