import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EndpointName } from '../../src/catalogue/types.js';
import { ENDPOINT_NAMES } from '../../src/catalogue/types.js';
import { canon, catalogue } from './helpers.js';

interface Fixture {
  path: string;
  query: string;
}

const fixtures = JSON.parse(
  readFileSync(new URL('../fixtures/datacenter-examples.json', import.meta.url), 'utf8'),
) as Fixture[];

describe('fixture queries', () => {
  it('cover all 22 endpoints', () => {
    expect(new Set(fixtures.map((f) => f.path))).toEqual(new Set(ENDPOINT_NAMES));
  });

  it.each(fixtures.map((f) => [f.path, f.query] as const))('%s?%s canonicalizes', (path, query) => {
    const def = catalogue.match(`/${path}`);
    expect(def?.name).toBe(path);
    const req = canon(path as EndpointName, query);
    // Every parameter the fixture gave survives with the same value.
    for (const pair of query.split('&').filter((s) => s.length > 0)) {
      const [k, v] = pair.split('=') as [string, string];
      expect(req.params.get(k)).toBe(v);
    }
    expect(req.upstreamPath.startsWith(`/${path}`)).toBe(true);
  });
});
