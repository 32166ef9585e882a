/**
 * Names that mean one thing: no exported name is declared in more than one
 * file of src/ (the simulator, src/sim/, aside: it models the service, not the
 * proxy). A name counts where it is declared with `export` (function, class,
 * interface, type, enum, const/let/var, namespace), listed in a local
 * `export { a }` / `export { a as b }`, or re-exported under a new name
 * (`export { a as b } from`). A re-export under the same name is the same
 * thing, not a second one. Overloads and merged declarations in one file count once.
 */
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { tsFiles } from '../helpers/source-tree.js';

const ROOT = join(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
const ASIDE = 'src/sim/';

const exported = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(e.name)));
}

/** The names a source text declares as exports (see the header for what counts). */
function declaredExports(text: string): string[] {
  const file = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const names = new Set<string>();
  for (const s of file.statements) {
    if (ts.isExportDeclaration(s) && s.exportClause !== undefined && ts.isNamedExports(s.exportClause)) {
      for (const e of s.exportClause.elements) {
        const renamed = e.propertyName !== undefined && e.propertyName.text !== e.name.text;
        if (s.moduleSpecifier === undefined || renamed) names.add(e.name.text);
      }
      continue;
    }
    if (!exported(s)) continue;
    if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) for (const n of bindingNames(d.name)) names.add(n);
    } else if (
      (ts.isFunctionDeclaration(s) ||
        ts.isClassDeclaration(s) ||
        ts.isInterfaceDeclaration(s) ||
        ts.isTypeAliasDeclaration(s) ||
        ts.isEnumDeclaration(s) ||
        ts.isModuleDeclaration(s)) &&
      s.name !== undefined &&
      ts.isIdentifier(s.name)
    ) {
      names.add(s.name.text);
    }
  }
  return [...names];
}

/** Name → the files declaring it, for the names declared in more than one. */
function duplicated(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const where = new Map<string, string[]>();
  for (const [path, text] of files) {
    for (const name of declaredExports(text)) where.set(name, [...(where.get(name) ?? []), path]);
  }
  return new Map([...where].filter(([, paths]) => paths.length > 1));
}

describe('the check itself', () => {
  it('reads every kind of exported declaration, once per file', () => {
    const text = [
      'export function f(a: number): void;',
      'export function f(a: string): void;',
      'export function f(a: unknown): void {}',
      'export async function g() {}',
      'export class C {}',
      'export interface I {}',
      'export type T = 1;',
      'export enum E { A }',
      'export const K = 1, L = 2;',
      'export const { m, n: [o] } = { m: 1, n: [2] };',
      'export namespace NS {}',
      'const local = 1;',
      'const other = 2;',
      'export { local, other as renamed };',
      "export { same } from './a.js';",
      "export type { Same } from './a.js';",
      "export { x as y } from './a.js';",
      "export * from './b.js';",
      'function hidden() {}',
      'export default 3;',
    ].join('\n');
    expect(declaredExports(text).sort()).toEqual(
      ['C', 'E', 'I', 'K', 'L', 'NS', 'T', 'f', 'g', 'local', 'm', 'o', 'renamed', 'y'].sort(),
    );
  });

  it('finds a name declared in two files, and not one re-exported under its own name', () => {
    const files = new Map([
      ['a.ts', 'export type Verdict = 1;\nexport const once = 1;'],
      ['b.ts', "export interface Verdict {}\nexport { once } from './a.js';"],
      ['c.ts', 'const v = 1;\nexport { v as Verdict };'],
    ]);
    expect([...duplicated(files)]).toEqual([['Verdict', ['a.ts', 'b.ts', 'c.ts']]]);
  });
});

describe('exported names in src/ (the simulator aside)', () => {
  const paths = tsFiles(SRC)
    .map((p) => relative(ROOT, p).split(sep).join('/'))
    .filter((p) => !p.startsWith(ASIDE));
  const twice = duplicated(new Map(paths.map((p) => [p, readFileSync(join(ROOT, p), 'utf8')])));

  it('are all read', () => {
    expect(paths.length).toBeGreaterThan(300);
    expect(paths).toContain('src/stages.ts');
  });

  it('are each declared in one file', () => {
    const found = [...twice];
    expect(found.map(([name, files]) => `${name}: ${files.join(', ')}`)).toEqual([]);
  });
});
