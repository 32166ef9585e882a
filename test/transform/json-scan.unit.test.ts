import { describe, expect, it } from 'vitest';
import {
  forEachItem,
  forEachMember,
  kindAt,
  locate,
  numberAt,
  root,
  skipValue,
  splice,
  stringAt,
} from '../../src/transform/json-scan.js';
import { fixtures } from './fixtures.js';

const b = (s: string) => Buffer.from(s, 'utf8');
const text = (buf: Buffer, r: { start: number; end: number } | null) =>
  r === null ? null : buf.toString('utf8', r.start, r.end);

describe('json-scan', () => {
  it('locates data.next, null and numbers with their exact bytes', () => {
    const body = b('{"code":0,"msg":"success","data":{"next":"http://x/a?page=2","previous":null,"height":4842503.0}}');
    expect(text(body, locate(body, ['data', 'next']))).toBe('"http://x/a?page=2"');
    expect(text(body, locate(body, ['data', 'previous']))).toBe('null');
    expect(text(body, locate(body, ['data', 'height']))).toBe('4842503.0');
    expect(locate(body, ['data', 'missing'])).toBeNull();
    expect(locate(body, ['nope', 'next'])).toBeNull();
    expect(locate(body, ['code', 'next'])).toBeNull();
  });

  it('is not fooled by "next": inside strings, escaped quotes and backslashes', () => {
    const body = b(
      '{"msg":"a \\"next\\": ' +
        '\\\\","data":{"note":"{\\"next\\":\\"evil\\"}","x\\"next":1,"s":"\\\\","next":"ok","deep":{"next":"no"}}}',
    );
    expect(JSON.parse(body.toString()).data.next).toBe('ok');
    expect(text(body, locate(body, ['data', 'next']))).toBe('"ok"');
    expect(text(body, locate(body, ['data', 'deep', 'next']))).toBe('"no"');
  });

  it('handles unicode, escaped keys, whitespace, BOM and nested arrays', () => {
    const body = b(
      '\ufeff {\n "data" : { "list" : [ [1,{"a":"]}"}], {"b":"\u00e9\u{1F600}\\u00e9"} ] , "ne\\u0078t" : "x" }\n}',
    );
    expect(text(body, locate(body, ['data', 'next']))).toBe('"x"');
    expect(text(body, locate(body, ['data', 'list', 1, 'b']))).toBe('"\u00e9\u{1F600}\\u00e9"');
    expect(text(body, locate(body, ['data', 'list', 0, 1, 'a']))).toBe('"]}"');
    expect(locate(body, ['data', 'list', 5])).toBeNull();
  });

  it('takes the last of duplicated keys, like JSON.parse', () => {
    const body = b('{"data":{"next":"a","next":"b"}}');
    expect(text(body, locate(body, ['data', 'next']))).toBe('"b"');
  });

  it('returns null / -1 on malformed or truncated input without throwing', () => {
    for (const s of [
      '',
      '{',
      '{"data":',
      '{"data":{"next":"unterminated',
      '{"data" 1}',
      '{"a":1,,}',
      '[1,2',
      'garbage',
      '"\\',
    ]) {
      const body = b(s);
      expect(() => locate(body, ['data', 'next'])).not.toThrow();
      expect(locate(body, ['data', 'next'])).toBeNull();
    }
    expect(skipValue(b('"abc'), 0)).toBe(-1);
    expect(root(b('   '))).toBeNull();
  });

  it('iterates members and items', () => {
    const body = b('{"a":1,"b":[true,false,null,"s",-1.5e3],"c":{}}');
    const keys: string[] = [];
    forEachMember(body, 0, (ks, ke) => {
      keys.push(body.toString('utf8', ks, ke));
    });
    expect(keys).toEqual(['a', 'b', 'c']);
    const arr = locate(body, ['b']);
    expect(arr).not.toBeNull();
    const kinds: string[] = [];
    forEachItem(body, arr?.start ?? -1, (v) => {
      kinds.push(kindAt(body, v));
    });
    expect(kinds).toEqual(['true', 'false', 'null', 'string', 'number']);
    expect(numberAt(body, locate(body, ['b', 4]) ?? { start: 0, end: 0 })).toBe(-1500);
    expect(stringAt(body, locate(body, ['b', 3]) ?? { start: 0, end: 0 })).toBe('s');
  });

  it('splices ranges in any order', () => {
    const body = b('{"a":1,"b":2}');
    const a = locate(body, ['a']);
    const bb = locate(body, ['b']);
    if (a === null || bb === null) throw new Error('missing');
    expect(
      splice(body, [
        { range: bb, bytes: b('"two"') },
        { range: a, bytes: b('10') },
      ]).toString(),
    ).toBe('{"a":10,"b":"two"}');
    expect(splice(body, [])).toBe(body);
  });

  it('agrees with JSON.parse on every fixture (all top-level data members)', () => {
    for (const f of fixtures) {
      const body = Buffer.from(f.body);
      const parsed = JSON.parse(f.body) as { data: unknown };
      const data = locate(body, ['data']);
      expect(JSON.parse(text(body, data) ?? 'undefined')).toEqual(parsed.data);
      if (typeof parsed.data === 'object' && parsed.data !== null && !Array.isArray(parsed.data)) {
        for (const [k, v] of Object.entries(parsed.data)) {
          expect(JSON.parse(text(body, locate(body, ['data', k])) ?? 'undefined')).toEqual(v);
        }
      }
    }
  });
});
