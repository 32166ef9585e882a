/**
 * One request lifecycle, one header builder: Cache-Control is formatted in
 * src/http/header-block.ts alone, and the outcome → X-Cache mapping lives in
 * src/http/serve.ts alone. Read from the source text with TypeScript's parser
 * (string literals and template pieces, never comments).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { tsFiles, walk } from '../helpers/source-tree.js';

const SRC = join(import.meta.dirname, '../../src');
const BUILDER = 'http/header-block.ts';
const SERVE = 'http/serve.ts';

/** Cache-Control directives with a value, and the final-content flag: what formatting a Cache-Control writes. */
const CACHE_CONTROL = /max-age=|stale-while-revalidate=|stale-if-error=|, immutable/;
const VERDICTS = new Set(['ERROR', 'BYPASS']);

interface Found {
  line: number;
  text: string;
}

function parse(text: string): ts.SourceFile {
  return ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
}

const lineOf = (sf: ts.SourceFile, n: ts.Node): number => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;

/** String literals and template pieces that format a Cache-Control value. */
function cacheControlLiterals(text: string): Found[] {
  const sf = parse(text);
  const out: Found[] = [];
  walk(sf, (n) => {
    if (ts.isStringLiteralLike(n) || ts.isTemplateLiteralToken(n)) {
      if (CACHE_CONTROL.test(n.text)) out.push({ line: lineOf(sf, n), text: n.text });
    }
  });
  return out;
}

const isVerdict = (n: ts.Expression): boolean => ts.isStringLiteralLike(n) && VERDICTS.has(n.text);

/** Conditional expressions that pick `ERROR` or `BYPASS`. */
function verdictChoices(sf: ts.SourceFile): ts.ConditionalExpression[] {
  const out: ts.ConditionalExpression[] = [];
  walk(sf, (n) => {
    if (ts.isConditionalExpression(n) && (isVerdict(n.whenTrue) || isVerdict(n.whenFalse))) out.push(n);
  });
  return out;
}

/** Does the condition compare a status (`status >= 500`, `err.status < 400`, ...)? */
function comparesStatus(c: ts.ConditionalExpression, sf: ts.SourceFile): boolean {
  return /status\b/.test(c.condition.getText(sf)) && /[<>]=?/.test(c.condition.getText(sf));
}

/** Status → X-Cache choices (`status >= 400 ? 'ERROR' : 'BYPASS'`) anywhere. */
function statusVerdicts(text: string): Found[] {
  const sf = parse(text);
  return verdictChoices(sf)
    .filter((c) => comparesStatus(c, sf))
    .map((c) => ({ line: lineOf(sf, c), text: c.getText(sf) }));
}

/** Under http/: any choice of ERROR/BYPASS, and any `'ERROR'` written by hand (schema enums aside). */
function httpVerdicts(text: string): Found[] {
  const sf = parse(text);
  const out = verdictChoices(sf).map((c) => ({ line: lineOf(sf, c), text: c.getText(sf) }));
  walk(sf, (n) => {
    if (!ts.isStringLiteral(n) || n.text !== 'ERROR') return;
    if (!ts.isArrayLiteralExpression(n.parent) && !ts.isConditionalExpression(n.parent))
      out.push({ line: lineOf(sf, n), text: n.getText(sf) });
  });
  return out;
}

const files = tsFiles(SRC).map((f) => ({
  name: relative(SRC, f).split('\\').join('/'),
  text: readFileSync(f, 'utf8'),
}));

/** The OpenAPI document describes the header in backquoted spans: documentation, not formatting. */
const isOpenApi = (name: string): boolean => name.startsWith('openapi/') || name.endsWith('openapi.ts');

describe('the checks themselves', () => {
  it('find a Cache-Control formatted in a string or a template, not in a comment', () => {
    const text = [
      '// public, max-age=1',
      "const a = 'public, max-age=300';",
      'const b = `public, max-age=${n}`;',
      'const c = `x, stale-while-revalidate=${s}, y`;',
      "const d = 'public, max-age=' + n + ', immutable';",
    ].join('\n');
    expect(cacheControlLiterals(text).map((f) => f.line)).toEqual([2, 3, 4, 5, 5]);
  });

  it('find a status mapped to ERROR/BYPASS, and a hand-written ERROR under http/', () => {
    const text = [
      "const x = res.status >= 500 ? 'ERROR' : 'BYPASS';",
      "const y = ok ? 'HIT' : 'MISS';",
      "metrics.request(name, status, 'ERROR', 0);",
      "const z = { enum: ['HIT', 'ERROR'] };",
      "const w = stored ? 'MISS' : 'BYPASS';",
    ].join('\n');
    expect(statusVerdicts(text).map((f) => f.line)).toEqual([1]);
    expect(httpVerdicts(text).map((f) => f.line)).toEqual([1, 5, 3]);
  });
});

describe('one header builder', () => {
  it('formats Cache-Control, and is the only source file that does', () => {
    const formatted = files.flatMap((f) =>
      cacheControlLiterals(f.text)
        .filter((l) => !(isOpenApi(f.name) && l.text.includes('`')))
        .map((l) => `${f.name}:${l.line} ${l.text}`),
    );
    expect(formatted.filter((l) => !l.startsWith(`${BUILDER}:`))).toEqual([]);
    expect(formatted.length).toBeGreaterThan(0);
  });
});

describe('one lifecycle', () => {
  it('maps a status to its X-Cache verdict in serve.ts alone', () => {
    const found = files.flatMap((f) => statusVerdicts(f.text).map((l) => `${f.name}:${l.line} ${l.text}`));
    expect(found.filter((l) => !l.startsWith(`${SERVE}:`))).toEqual([]);
    expect(found.length).toBe(1);
  });

  it('leaves no outcome → X-Cache choice to the route files, the writers or the fast path', () => {
    const found = files
      .filter((f) => f.name.startsWith('http/') && f.name !== SERVE)
      .flatMap((f) => httpVerdicts(f.text).map((l) => `${f.name}:${l.line} ${l.text}`));
    expect(found).toEqual([]);
  });
});
