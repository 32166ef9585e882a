/**
 * The composition root builds in order: src/app.ts, src/stages.ts and its
 * builders (src/root/) declare no `let` (no reference filled in after construction),
 * and no closure names a stage declared further down (a forward reference
 * that only works because the closure runs later). A stage that must tell a
 * later one does it through an event the later one subscribes to, or a
 * second step once it exists.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/** The composition root's files: the server's, the stages' and their builders. */
function rootFiles(): string[] {
  const builders = readdirSync(join(ROOT, 'src/root')).filter((f) => f.endsWith('.ts'));
  return ['src/app.ts', 'src/stages.ts', ...builders.map((f) => `src/root/${f}`)];
}

const parse = (text: string): ts.SourceFile => ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
const lineOf = (sf: ts.SourceFile, pos: number): number => sf.getLineAndCharacterOfPosition(pos).line + 1;

function each(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node);
  node.forEachChild((c) => each(c, visit));
}

/** Every `let` declaration, as `name (line N)`. */
function lets(text: string): string[] {
  const sf = parse(text);
  const out: string[] = [];
  each(sf, (n) => {
    if (!ts.isVariableDeclarationList(n) || (n.flags & ts.NodeFlags.Let) === 0) return;
    for (const d of n.declarations) out.push(`${d.name.getText(sf)} (line ${lineOf(sf, d.getStart(sf))})`);
  });
  return out;
}

/** Names a binding declares (`a`, `{ a, b: c }`, `[d]`). */
function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : boundNames(e.name)));
}

/** An identifier that names a variable here (not a property, a key, a type or a declaration's own name). */
function isReference(id: ts.Identifier): boolean {
  const p = id.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === id) return false;
  if ((ts.isPropertyAssignment(p) || ts.isMethodDeclaration(p) || ts.isPropertySignature(p)) && p.name === id)
    return false;
  if ((ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isBindingElement(p)) && p.name === id) return false;
  if (ts.isBindingElement(p) && p.propertyName === id) return false;
  for (let n: ts.Node = id; n.parent !== undefined; n = n.parent) if (ts.isTypeNode(n)) return false;
  return true;
}

/** A function between `id` and `block` has a parameter named like it (the closure's own name, not the stage). */
function shadowed(id: ts.Identifier, block: ts.Node): boolean {
  for (let n: ts.Node = id.parent; n !== block; n = n.parent) {
    if (ts.isFunctionLike(n) && n.parameters.some((p) => boundNames(p.name).includes(id.text))) return true;
  }
  return false;
}

/** Names used before the statement of their block that declares them, as `name (line N)`. */
function forwardReferences(text: string): string[] {
  const sf = parse(text);
  const out: string[] = [];
  each(sf, (block) => {
    if (!ts.isBlock(block) && !ts.isSourceFile(block)) return;
    const declaredAt = new Map<string, number>();
    for (const s of block.statements) {
      if (!ts.isVariableStatement(s)) continue;
      for (const d of s.declarationList.declarations)
        for (const name of boundNames(d.name)) declaredAt.set(name, s.pos);
    }
    if (declaredAt.size === 0) return;
    each(block, (n) => {
      if (!ts.isIdentifier(n) || !isReference(n)) return;
      const at = declaredAt.get(n.text);
      if (at !== undefined && n.getStart(sf) < at && !shadowed(n, block))
        out.push(`${n.text} (line ${lineOf(sf, n.getStart(sf))})`);
    });
  });
  return out;
}

describe('the checks themselves', () => {
  it('find every `let`, and not one in a comment or a string', () => {
    const text = [
      'let memoryRef: MemoryStore | undefined;',
      'let fleetRef: Fleet | null = null;',
      'function f() {',
      '  let adopt = null;',
      '  for (let i = 0; i < 2; i++) g(i);',
      '}',
      '// let commented = null;',
      "const s = 'let quoted = null';",
      'const kept = 1;',
    ].join('\n');
    expect(lets(text)).toEqual(['memoryRef (line 1)', 'fleetRef (line 2)', 'adopt (line 4)', 'i (line 5)']);
  });

  it('find a closure naming a stage declared below it, and nothing else', () => {
    const text = [
      'function build() {',
      '  const tracker = new Tracker({ onRefuted: (s) => sitOuts.bench(s) });',
      '  const sitOuts = new SitOuts();',
      '  const early = (resolver: Resolver) => ({ resolver: resolver.fresh, pool: sitOuts.pool });',
      '  const pool = makePool({ sitOuts, tracker, fresh: (k: string) => resolver.fresh(k) });',
      '  const resolver = new Resolver({ pool, tracker: pool.tracker });',
      '  return { tracker, early };',
      '}',
    ].join('\n');
    expect(forwardReferences(text)).toEqual(['sitOuts (line 2)', 'resolver (line 5)']);
  });
});

describe('the composition root (src/app.ts, src/stages.ts, src/root/)', () => {
  const files = rootFiles();
  const texts = new Map(files.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')] as const));

  it('is read whole: the root and a builder per subsystem', () => {
    expect(files).toEqual(
      expect.arrayContaining(['src/app.ts', 'src/stages.ts', 'src/root/chain.ts', 'src/root/fleet.ts']),
    );
    expect(files.length).toBeGreaterThanOrEqual(8);
  });

  it('declares no `let`: nothing is filled in after construction', () => {
    const found = files.flatMap((f) => lets(texts.get(f) ?? '').map((l) => `${f}: ${l}`));
    expect(found).toEqual([]);
  });

  it('has no closure naming a stage declared further down', () => {
    const found = files.flatMap((f) => forwardReferences(texts.get(f) ?? '').map((r) => `${f}: ${r}`));
    expect(found).toEqual([]);
  });
});
