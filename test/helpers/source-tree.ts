/** Reading the source tree in architecture tests: its TypeScript files, and every node of a parsed file. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type ts from 'typescript';

/** Every `.ts` file below `dir`, depth first. */
export function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Visits `node` and every node below it. */
export function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node);
  node.forEachChild((c) => walk(c, visit));
}
