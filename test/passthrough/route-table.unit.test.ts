/** The live table of passthrough prefixes: matching by prefix, and what a reload's configuration changes in it. */
import { describe, expect, it } from 'vitest';
import { PassTable } from '../../src/passthrough/route-table.js';
import { passConfig } from './kit.js';

const A = 'http://a:1';
const B = 'http://b:2';

describe('PassTable', () => {
  it('matches a URL under a served prefix only (the prefix itself, a path or a query after it)', () => {
    const t = new PassTable(passConfig([{ prefix: '/api', target: A }]));
    for (const url of ['/api', '/api/x', '/api?x=1', '/api/x/y?z']) expect(t.match(url)?.prefix, url).toBe('/api');
    for (const url of ['/apis', '/apix/y', '/', '/tx/list', '/a/api']) expect(t.match(url), url).toBeNull();
  });

  it('an empty configuration serves nothing; a change says which prefixes it added', () => {
    const t = new PassTable(passConfig([]));
    expect(t.live).toEqual([]);
    expect(t.apply(passConfig([]))).toEqual({ changed: false, added: [] });
    const change = t.apply(
      passConfig([
        { prefix: '/api', target: A },
        { prefix: '/old', target: B },
      ]),
    );
    expect(change).toEqual({ changed: true, added: ['/api', '/old'] });
    expect(t.match('/old/x')?.origin).toBe(B);
  });

  it('keeps one route object per prefix: changed in place, dropped and taken back', () => {
    const t = new PassTable(passConfig([{ prefix: '/api', target: A }]));
    const route = t.match('/api/x')!;
    expect(t.apply(passConfig([{ prefix: '/api', target: A }]))).toEqual({ changed: false, added: [] });
    expect(t.apply(passConfig([{ prefix: '/api', target: `${B}/v2` }]))).toEqual({ changed: true, added: [] });
    expect(route).toMatchObject({ origin: B, rewritePrefix: '/v2' });
    expect(t.apply(passConfig([]))).toEqual({ changed: true, added: [] });
    expect(t.match('/api/x')).toBeNull();
    expect(route.origin).toBe(B);
    expect(t.apply(passConfig([{ prefix: '/api', target: A }]))).toEqual({ changed: true, added: ['/api'] });
    expect(t.match('/api/x')).toBe(route);
    expect(route).toMatchObject({ origin: A, rewritePrefix: '/api' });
  });

  it('a policy or an ignored parameter is a change; the routes serve them from the next request', () => {
    const t = new PassTable(passConfig([{ prefix: '/api', target: A }]));
    const route = t.match('/api')!;
    const next = passConfig([{ prefix: '/api', target: A }], {
      cache: { '/api': { kind: 'head' } },
      ignoreParams: ['timestamp'],
    });
    expect(t.apply(next).changed).toBe(true);
    expect(route.policy).toEqual({ kind: 'head' });
    expect([...route.ignore]).toEqual(['timestamp']);
    expect(t.apply(next).changed).toBe(false);
  });
});
