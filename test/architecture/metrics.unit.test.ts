/**
 * One way to declare a metric: a family is built only by src/metrics/declare.ts,
 * from a row of src/metrics/table.ts. Read from the source text with
 * TypeScript's parser: outside declare.ts, no value import of a prom-client
 * family class and no `new` of a family class; every row is named by the code
 * that builds it (a row nothing builds would be documented yet never exposed).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { METRICS } from '../../src/metrics/table.js';
import { tsFiles, walk } from '../helpers/source-tree.js';

const SRC = join(import.meta.dirname, '../../src');
const DECLARE = 'metrics/declare.ts';
const FAMILIES = new Set([
  'Counter',
  'Gauge',
  'Histogram',
  'Summary',
  'DenseCounter',
  'DenseHistogram',
  'CallbackGauge',
]);

/**
 * Where a source builds a family by hand (`new Counter(…)`, or a value import
 * of one from prom-client), and its string literals (row names are passed as literals).
 */
function read(text: string): { handBuilt: string[]; literals: Set<string> } {
  const file = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const literals = new Set<string>();
  walk(file, (n) => {
    if (ts.isStringLiteral(n)) literals.add(n.text);
    if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && FAMILIES.has(n.expression.text))
      found.push(`new ${n.expression.text}`);
    if (!ts.isImportDeclaration(n) || n.importClause?.isTypeOnly === true) return;
    if (!ts.isStringLiteral(n.moduleSpecifier) || n.moduleSpecifier.text !== 'prom-client') return;
    const names = n.importClause?.namedBindings;
    if (names === undefined || !ts.isNamedImports(names)) return;
    for (const e of names.elements)
      if (!e.isTypeOnly && FAMILIES.has(e.name.text)) found.push(`import ${e.name.text} from prom-client`);
  });
  return { handBuilt: found, literals };
}

const handBuilt = (text: string): string[] => read(text).handBuilt;

describe('the checks themselves', () => {
  it('see a family built by hand, and not a type import or a declared one', () => {
    expect(handBuilt("import { Counter, type Registry } from 'prom-client';")).toEqual([
      'import Counter from prom-client',
    ]);
    expect(handBuilt("const c = new DenseCounter('x', 'y', []);")).toEqual(['new DenseCounter']);
    expect(handBuilt("import type { Counter } from 'prom-client';\nconst c = counter(r, 'x_total');")).toEqual([]);
    expect(handBuilt("import { type Counter, Registry } from 'prom-client';")).toEqual([]);
  });
});

describe('metrics', () => {
  const files = tsFiles(SRC).map((p) => ({ rel: relative(SRC, p), ...read(readFileSync(p, 'utf8')) }));

  it('are built only by src/metrics/declare.ts', () => {
    const byHand = files.filter((f) => f.rel !== DECLARE).flatMap((f) => f.handBuilt.map((h) => `${f.rel}: ${h}`));
    expect(byHand).toEqual([]);
  });

  it('every row of the table is built somewhere', () => {
    const named = new Set(files.filter((f) => f.rel !== 'metrics/table.ts').flatMap((f) => [...f.literals]));
    expect(Object.keys(METRICS).filter((name) => !named.has(name))).toEqual([]);
  });
});
