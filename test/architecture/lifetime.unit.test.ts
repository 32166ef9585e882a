/**
 * One lifetime: an entry's windows (freshUntil, swrUntil, sieUntil) are laid
 * out and moved only by src/cache/lifetime.ts. Anywhere else in src/ a window
 * may be read, declared as a type, or, in the files below that only carry
 * entries as they are, copied field for field (`freshUntil: entry.freshUntil`).
 * A window set to anything else (`freshUntil: now + ttl`, `e.swrUntil = …`, a
 * local `const sieUntil = …`) fails this test.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tsFiles } from '../helpers/source-tree.js';

const ROOT = join(import.meta.dirname, '../..');
const LIFETIME = 'src/cache/lifetime.ts';
/** Files that copy the windows unchanged: the shared tier's encoding of an entry. */
const COPIES = new Set(['src/redis/codec.ts']);

const WINDOW = '(?:freshUntil|swrUntil|sieUntil)';
const PROPERTY = new RegExp(`\\b(${WINDOW})\\??\\s*:\\s*([^,;\\n}]*)`, 'g');
const ASSIGNED = new RegExp(`\\.${WINDOW}\\s*(?:[-+*/]?=)(?!=)`, 'g');
const DECLARED = new RegExp(`\\b(?:const|let|var)\\s+${WINDOW}\\b`, 'g');

/** The source without comments (strings are kept: a window named in one is no assignment). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** What sets a window in `text` other than a type or (when `copies`) a copy of the same field. */
function windowArithmetic(text: string, copies: boolean): string[] {
  const src = code(text);
  const found: string[] = [];
  for (const m of src.matchAll(PROPERTY)) {
    const [whole, name, value] = m as unknown as [string, string, string];
    const v = value.trim();
    if (/^number\b/.test(v)) continue;
    if (copies && new RegExp(`^[\\w.]+\\.${name}$`).test(v)) continue;
    found.push(whole.trim());
  }
  for (const m of src.matchAll(ASSIGNED)) found.push(m[0].trim());
  for (const m of src.matchAll(DECLARED)) found.push(m[0].trim());
  return found;
}

describe('the check itself', () => {
  it('finds windows set outside the lifetime module, and not types, reads or comments', () => {
    expect(windowArithmetic('return { ...e, freshUntil: now + ttl };', false)).toEqual(['freshUntil: now + ttl']);
    expect(windowArithmetic('const x = { sieUntil: later(at) }', false)).toEqual(['sieUntil: later(at)']);
    expect(windowArithmetic('e.swrUntil = 5;', false)).toEqual(['.swrUntil =']);
    expect(windowArithmetic('entry.freshUntil += 1;', false)).toEqual(['.freshUntil +=']);
    expect(windowArithmetic('let sieUntil = x + 1;', false)).toEqual(['let sieUntil']);
    expect(windowArithmetic('{ freshUntil: entry.freshUntil }', false)).toEqual(['freshUntil: entry.freshUntil']);
    expect(windowArithmetic('{ freshUntil: entry.freshUntil }', true)).toEqual([]);
    expect(windowArithmetic('{ freshUntil: entry.swrUntil }', true)).toEqual(['freshUntil: entry.swrUntil']);
    expect(windowArithmetic('interface W {\n  freshUntil: number;\n  swrUntil?: number;\n}', false)).toEqual([]);
    expect(windowArithmetic('if (now < e.freshUntil && e.sieUntil === 3) f(e.swrUntil);', false)).toEqual([]);
    expect(windowArithmetic('// freshUntil: now + 1\n/* sieUntil: 2 */ const a = 1;', false)).toEqual([]);
  });
});

describe('one lifetime module', () => {
  it('no window arithmetic in src/ outside src/cache/lifetime.ts (copies only in the encoding)', () => {
    const found: string[] = [];
    for (const file of tsFiles(join(ROOT, 'src'))) {
      const rel = relative(ROOT, file).split('\\').join('/');
      if (rel === LIFETIME) continue;
      for (const f of windowArithmetic(readFileSync(file, 'utf8'), COPIES.has(rel))) found.push(`${rel}: ${f}`);
    }
    expect(found).toEqual([]);
  });

  it('the lifetime module itself sets the windows (the check reads a file that exists)', () => {
    expect(windowArithmetic(readFileSync(join(ROOT, LIFETIME), 'utf8'), false).length).toBeGreaterThan(0);
  });
});
