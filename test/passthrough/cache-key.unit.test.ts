/** Passthrough cache keys and forwarded paths: ignored parameters dropped, the rest kept as sent. */
import { describe, expect, it } from 'vitest';
import { unusualPath, withoutParams } from '../../src/passthrough/cache-key.js';
import { compileRoute, passRequest, passUrlKey } from '../../src/passthrough/request.js';

describe('passthrough cache keys', () => {
  const route = compileRoute({ prefix: '/explorer', target: 'http://b:1' }, undefined, ['timestamp', '_']);

  it('drop the ignored parameters, keep the rest in order and as written', () => {
    expect(withoutParams('page=1&timestamp=17&page_size=25', new Set(['timestamp']))).toBe('page=1&page_size=25');
    expect(withoutParams('timestamp=1&_=2', new Set(['timestamp', '_']))).toBe('');
    expect(withoutParams('time%73tamp=1&q=a%20b', new Set(['timestamp']))).toBe('q=a%20b');
    expect(withoutParams('b=2&a=1', new Set())).toBe('b=2&a=1');
  });

  it('are the path with the kept query; the backend gets the same query', () => {
    const a = passRequest(route, '/explorer/block/list?page=1&timestamp=1700000000000', {});
    const b = passRequest(route, '/explorer/block/list?page=1&timestamp=1700000000999', {});
    expect(a.key).toBe('/explorer/block/list?page=1');
    expect(b.key).toBe(a.key);
    expect(a.path).toBe('/explorer/block/list?page=1');
    expect(passRequest(route, '/explorer/tx/latest?timestamp=5', {}).key).toBe('/explorer/tx/latest');
  });

  it('a target with a path replaces the prefix on the backend, not in the key', () => {
    const v2 = compileRoute({ prefix: '/explorer', target: 'http://b:1/v2' }, { kind: 'head' }, []);
    const r = passRequest(v2, '/explorer/nasinfo?x=1', {});
    expect(r.key).toBe('/explorer/nasinfo?x=1');
    expect(r.path).toBe('/v2/nasinfo?x=1');
    expect(r.route.origin).toBe('http://b:1');
  });

  it('leaves dot segments and encoded separators to the streaming proxy', () => {
    for (const p of ['/explorer/../tx', '/explorer/./a', '/explorer/%2e%2e/x', '/explorer/a%2Fb', '/explorer\\a'])
      expect(unusualPath(p), p).toBe(true);
    expect(unusualPath('/explorer/tx/detail.json')).toBe(false);
  });

  it('the pre-router lookup: a URL under a prefix that ignores parameters, by its key; anything else null', () => {
    const other = compileRoute({ prefix: '/api', target: 'http://b:2' }, undefined, []);
    const lookup = passUrlKey({ live: [route, other] });
    expect(lookup('/explorer/tx/latest?timestamp=17&page=1')).toBe('/explorer/tx/latest?page=1');
    expect(lookup('/explorer?timestamp=1')).toBe('/explorer');
    expect(lookup('/explorers/x?timestamp=1')).toBeNull();
    expect(lookup('/api/x?timestamp=1')).toBeNull();
    expect(lookup('/tx/list?page=1')).toBeNull();
  });
});
