/**
 * Knowledge of an endpoint stays in its module: outside the simulator, each
 * endpoint path is spelled in string literals of at most two source files
 * (its module, and the page table where a page uses it), `block/max` in at
 * most four (the head machinery). Comments and import specifiers do not
 * count. A literal spells a path when it is the path (`'tx/list'`,
 * `'/tx/list'`), or holds it as a request: after a `/` (a URL), before a `?`
 * (a query), or quoted (`"tx/list"`). Running prose (a help text, a log
 * message, a description naming an endpoint in words) is documentation and
 * does not count.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ENDPOINT_NAMES } from '../../src/endpoints/index.js';

const ROOT = join(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
const LIMIT = 2;
const HEAD_LIMIT = 4;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return p === join(SRC, 'sim') ? [] : sourceFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** The text of every string and template literal of a file (comments are not tokens). */
function literals(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) return;
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) out.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

// Longest first, so `token/tx/list` is one path, not a `tx/list` inside it.
const BY_LENGTH = [...ENDPOINT_NAMES].sort((a, b) => b.length - a.length);
const PATH = new RegExp(
  `(?<![A-Za-z0-9_-])(${BY_LENGTH.map((n) => n.replace(/\//g, '\\/')).join('|')})(?![A-Za-z0-9_-]|\\/[A-Za-z])`,
  'g',
);

const QUOTES = new Set(['"', "'", '`']);

/** Endpoint paths a literal spells (see the rule above). */
function pathsIn(text: string): string[] {
  const whole = BY_LENGTH.find((n) => n === text || `/${n}` === text);
  if (whole !== undefined) return [whole];
  return [...text.matchAll(PATH)].flatMap((m) => {
    const before = text[m.index - 1] ?? '';
    const after = text[m.index + m[0].length] ?? '';
    const spelled =
      before === '/' || (after === '?' && m[1]!.includes('/')) || (QUOTES.has(before) && after === before);
    return spelled ? [m[1]!] : [];
  });
}

/** For each endpoint path, the source files (outside src/sim) whose literals spell it. */
function pathLiteralFiles(): Map<string, string[]> {
  const files = new Map<string, string[]>(ENDPOINT_NAMES.map((n) => [n, []]));
  for (const file of sourceFiles(SRC)) {
    const found = new Set(literals(file).flatMap(pathsIn));
    for (const n of found) files.get(n)!.push(relative(ROOT, file));
  }
  return files;
}

describe('endpoint path literals', () => {
  const files = pathLiteralFiles();

  it('the scanner sees literals, not comments, and keeps longer paths whole', () => {
    expect(pathsIn('/tx/list?page=1')).toEqual(['tx/list']);
    expect(pathsIn('token/tx/list')).toEqual(['token/tx/list']);
    expect(pathsIn('/tx/list/pending')).toEqual(['tx/list/pending']);
    expect(pathsIn('holders')).toEqual(['holders']);
    expect(pathsIn('token holders')).toEqual([]);
    expect(pathsIn('{"path":"/block/max"}')).toEqual(['block/max']);
    expect(pathsIn('such as "block/max" or "tx/detail?hash=…"')).toEqual(['block/max', 'tx/detail']);
    expect(pathsIn('try http://proxy:8080/block/max')).toEqual(['block/max']);
    expect(pathsIn('fetch them from block/list if needed')).toEqual([]);
    const code =
      "import { x } from './tx/list.js';\n// 'block/max'\n/* 'tx/detail' */ const y = `${b}/block/list?page=1`;";
    expect(literals('x.ts', code).flatMap(pathsIn)).toEqual(['block/list']);
  });

  it('each path is spelled in its own module', () => {
    // The module's file name: the path with dashes (`tx/listByAddress`: tx-list-by-address.ts).
    const fileOf = (name: string): string =>
      `src/endpoints/${name.replace(/\//g, '-').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.ts`;
    for (const [name, where] of files) expect(where, name).toContain(fileOf(name));
  });

  it(`at most ${LIMIT} files per endpoint (block/max: ${HEAD_LIMIT})`, () => {
    const over = [...files].filter(([name, where]) => where.length > (name === 'block/max' ? HEAD_LIMIT : LIMIT));
    expect(Object.fromEntries(over)).toEqual({});
  });
});
