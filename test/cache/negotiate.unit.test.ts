import { describe, expect, it } from 'vitest';
import { chooseEncoding, takesGzip } from '../../src/cache/negotiate.js';

describe('chooseEncoding', () => {
  const cases: [string | undefined, string][] = [
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip, deflate, br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['GZIP', 'gzip'],
    ['x-gzip', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0.5, gzip;q=0.8', 'gzip'],
    ['br;q=0.8, gzip;q=0.8', 'br'],
    ['gzip;q=0, br;q=0', 'identity'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['*;q=0', 'identity'],
    ['identity', 'identity'],
    ['deflate', 'identity'],
    ['identity;q=1, gzip;q=0.5', 'identity'],
    ['gzip;q=abc', 'identity'],
    [' br ; q=1 , gzip ', 'br'],
  ];
  for (const [header, expected] of cases) {
    it(`${JSON.stringify(header)} → ${expected}`, () => {
      expect(chooseEncoding(header)).toBe(expected);
      expect(chooseEncoding(header)).toBe(expected); // memoized answer is the same
    });
  }

  it('stays correct past the memo bound', () => {
    for (let i = 0; i < 1000; i++) expect(chooseEncoding(`gzip;q=0.${(i % 9) + 1}, x${i}`)).toBe('gzip');
    expect(chooseEncoding('br')).toBe('br');
    expect(chooseEncoding(`gzip, ${'x'.repeat(1000)}`)).toBe('gzip');
  });
});

describe('takesGzip', () => {
  const cases: [string | undefined, boolean][] = [
    [undefined, false],
    ['gzip, deflate, br', true],
    ['br', false],
    ['*', true],
    ['br, gzip;q=0', false],
    ['identity;q=1, gzip;q=0.5, br', false],
    ['br;q=1, gzip;q=0.5', true],
  ];
  for (const [header, expected] of cases) {
    it(`${JSON.stringify(header)} → ${expected}`, () => {
      expect(takesGzip(header)).toBe(expected);
      expect(takesGzip(header)).toBe(expected);
    });
  }
});
