/**
 * House style: no line of TypeScript longer than 120 characters in src/, test/,
 * bench/ or scripts/. Prettier wraps code at that width but leaves strings and
 * comments as written, so this reads every line. EXEMPT lists files allowed
 * to be over (none today); a listed file leaves it once wrapped (the test
 * fails while a listed file has no long line left).
 */
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tsFiles } from '../helpers/source-tree.js';

const ROOT = join(import.meta.dirname, '../..');
const FOLDERS = ['src', 'test', 'bench', 'scripts'];
const MAX = 120;

const EXEMPT: readonly string[] = [];

/** Lines longer than `max` characters (code points), as `line N: M characters`. */
function longLines(text: string, max = MAX): string[] {
  return text.split('\n').flatMap((line, i) => {
    const n = [...line].length;
    return n > max ? [`line ${i + 1}: ${n} characters`] : [];
  });
}

describe('the check itself', () => {
  it('counts characters, not bytes: 120 pass, 121 fail', () => {
    expect(longLines(`${'x'.repeat(120)}\n${'é'.repeat(120)}\n${'→'.repeat(120)}`)).toEqual([]);
    expect(longLines(`short\n${'x'.repeat(121)}\n${'x'.repeat(120)}\n  ${'é'.repeat(119)}`)).toEqual([
      'line 2: 121 characters',
      'line 4: 121 characters',
    ]);
  });
});

describe('every .ts line in src/, test/, bench/ and scripts/', () => {
  const files = FOLDERS.flatMap((f) => tsFiles(join(ROOT, f))).map((p) => relative(ROOT, p).split(sep).join('/'));
  const over = new Map(files.map((f) => [f, longLines(readFileSync(join(ROOT, f), 'utf8'))] as const));

  it('are all read', () => {
    expect(files.length).toBeGreaterThan(400);
    expect(files).toContain('test/architecture/line-length.unit.test.ts');
  });

  it(`is at most ${MAX} characters long, but in the files not wrapped yet`, () => {
    const found = [...over].filter(([f, lines]) => lines.length > 0 && !EXEMPT.includes(f));
    expect(found.map(([f, lines]) => `${f}: ${lines.join(', ')}`)).toEqual([]);
  });

  it('leaves the exemption list once a listed file is wrapped', () => {
    const wrapped = EXEMPT.filter((f) => (over.get(f) ?? []).length === 0);
    expect(wrapped, 'listed files with no long line left (or gone): take them off EXEMPT').toEqual([]);
  });
});
