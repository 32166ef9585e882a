import { describe, expect, it } from 'vitest';
import { rewriteLinks, linkQuery } from '../../src/transform/links.js';
import { fixtures } from './fixtures.js';

const PUBLIC = 'https://proxy.example.com';

function withoutLinks(v: unknown): unknown {
  const o = structuredClone(v) as { data?: Record<string, unknown> };
  if (o.data && typeof o.data === 'object') {
    delete o.data['next'];
    delete o.data['previous'];
  }
  return o;
}

describe('rewriteLinks', () => {
  const paged = fixtures.filter((f) => /"next"\s*:/.test(f.body));

  it('has paged fixtures to check', () => {
    expect(paged.length).toBeGreaterThanOrEqual(9);
  });

  for (const f of paged) {
    it(`rewrites ${f.path} to the public base, same path and query, other bytes unchanged`, () => {
      const body = Buffer.from(f.body);
      const before = JSON.parse(f.body) as { data: { next: string; previous: string | null } };
      const out = rewriteLinks(body, f.path, PUBLIC);
      const after = JSON.parse(out.toString()) as { data: { next: string; previous: string | null } };
      expect(after.data.next).toBe(`${PUBLIC}/${f.path}?${new URL(before.data.next).search.slice(1)}`);
      expect(after.data.previous).toBe(
        before.data.previous === null ? null : `${PUBLIC}/${f.path}?${linkQuery(before.data.previous)}`,
      );
      expect(out.toString()).not.toContain('data.nebulas.io');
      expect(withoutLinks(after)).toEqual(withoutLinks(before));
      // Byte-level: everything outside the two links is untouched.
      const strip = (s: string) => s.replace(/"(next|previous)":("[^"]*"|null)/g, '"$1":L');
      expect(strip(out.toString())).toBe(strip(f.body));
    });
  }

  it('returns the same Buffer when there is nothing to change', () => {
    for (const f of fixtures.filter((x) => !/"next"\s*:/.test(x.body))) {
      const body = Buffer.from(f.body);
      expect(rewriteLinks(body, f.path, PUBLIC)).toBe(body);
    }
    const already = Buffer.from(
      `{"code":0,"msg":"success","data":{"next":"${PUBLIC}/holders?page=2","previous":null}}`,
    );
    expect(rewriteLinks(already, 'holders', PUBLIC)).toBe(already);
  });

  it('preserves .0 numbers elsewhere in the body', () => {
    const body = Buffer.from(
      '{"code":0,"msg":"success","data":{"next":"http://up/holders?page=2","x":1.0,"list":[{"percentage":12.50}]}}',
    );
    const out = rewriteLinks(body, 'holders', PUBLIC).toString();
    expect(out).toBe(
      `{"code":0,"msg":"success","data":{"next":"${PUBLIC}/holders?page=2","x":1.0,"list":[{"percentage":12.50}]}}`,
    );
  });

  it('handles an upstream base with a path prefix and a public base with a prefix and trailing slash', () => {
    const body = Buffer.from(
      '{"code":0,"msg":"success","data":{"next":"http://10.0.0.7:8080/api/v1/tx/list?page=3&' +
        'page_size=2","previous":"http://10.0.0.7:8080/api/v1/tx/list?page=1&page_size=2"}}',
    );
    const out = JSON.parse(rewriteLinks(body, 'tx/list', 'https://pub.example/chain/').toString());
    expect(out.data.next).toBe('https://pub.example/chain/tx/list?page=3&page_size=2');
    expect(out.data.previous).toBe('https://pub.example/chain/tx/list?page=1&page_size=2');
  });

  it('keeps the query byte for byte (order, encoding)', () => {
    const body = Buffer.from('{"data":{"next":"http://up/token/tx/list?token=N%C3%84X&page=2&page_size=2&x=a+b"}}');
    expect(JSON.parse(rewriteLinks(body, 'token/tx/list', PUBLIC).toString()).data.next).toBe(
      `${PUBLIC}/token/tx/list?token=N%C3%84X&page=2&page_size=2&x=a+b`,
    );
  });

  it('never leaves a foreign host: garbage, relative and other-endpoint links', () => {
    const cases: [string, string][] = [
      ['not a url?page=2', `${PUBLIC}/tx/list?page=2`],
      ['/tx/list?page=2', `${PUBLIC}/tx/list?page=2`],
      ['http://evil.example/other/path?page=9', `${PUBLIC}/tx/list?page=9`],
      ['http://evil.example/tx/list/pending?page=2', `${PUBLIC}/tx/list?page=2`],
      ['http://evil.example/tx/list', `${PUBLIC}/tx/list`],
      ['http://evil.example/tx/list?page=2#frag', `${PUBLIC}/tx/list?page=2`],
      ['', `${PUBLIC}/tx/list`],
    ];
    for (const [link, expected] of cases) {
      const body = Buffer.from(JSON.stringify({ code: 0, msg: 'success', data: { next: link, previous: null } }));
      const out = JSON.parse(rewriteLinks(body, 'tx/list', PUBLIC).toString());
      expect(out.data.next, link).toBe(expected);
      expect(out.data.previous).toBeNull();
    }
  });

  it('touches only data.next / data.previous directly inside top-level data', () => {
    const src = {
      next: 'http://up/tx/list?page=1',
      data: {
        list: [{ next: 'http://up/x?y=1' }],
        token: { previous: 'http://up/z' },
        next: 'http://up/tx/list?page=2',
        note: '"next":"http://up/"',
      },
    };
    const out = JSON.parse(rewriteLinks(Buffer.from(JSON.stringify(src)), 'tx/list', PUBLIC).toString());
    expect(out).toEqual({ ...src, data: { ...src.data, next: `${PUBLIC}/tx/list?page=2` } });
  });

  it('leaves non-object data, non-string links and malformed bodies alone', () => {
    for (const s of [
      '{"data":[{"next":"http://up/a?b=1"}]}',
      '{"data":{"next":42,"previous":null}}',
      '{"data":{"next":"http://up/a?b=1"',
      'oops',
      '[]',
    ]) {
      const body = Buffer.from(s);
      expect(rewriteLinks(body, 'tx/list', PUBLIC)).toBe(body);
    }
  });
});
