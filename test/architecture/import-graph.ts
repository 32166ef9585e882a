/**
 * The import graph of the source files: for each .ts file under a folder, the
 * files it imports through relative specifiers (`import`, `import type`,
 * `export ... from`, `import()`), as paths relative to that folder. Comments
 * and strings do not count (TypeScript's own pre-processor reads them).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import ts from 'typescript';
import { tsFiles } from '../helpers/source-tree.js';

/** File → the files it imports (paths relative to the source root, `/`-separated). */
export type Graph = ReadonlyMap<string, ReadonlySet<string>>;

/** Every module specifier a source text imports or re-exports. */
export function specifiersOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/**
 * The graph of every .ts file under `root`. A relative specifier that names
 * no file (a typo the compiler would also refuse) throws, so no edge is lost
 * silently; JSON imports are not source files and are left out.
 */
export function readGraph(root: string): Graph {
  const graph = new Map<string, Set<string>>();
  for (const file of tsFiles(root)) {
    const from = relative(root, file).split('\\').join('/');
    const to = new Set<string>();
    for (const spec of specifiersOf(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.') || spec.endsWith('.json')) continue;
      const target = posix.normalize(posix.join(posix.dirname(from), spec.replace(/\.js$/, '.ts')));
      if (!existsSync(join(root, target))) throw new Error(`${from}: import ${spec} names no source file`);
      to.add(target);
    }
    graph.set(from, to);
  }
  return graph;
}

/** Strongly connected sets of more than one file, and files importing themselves (Tarjan). */
export function cycles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    const at = index.size;
    let lowest = at;
    index.set(v, at);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) visit(w);
      if (onStack.has(w)) lowest = Math.min(lowest, low.get(w) ?? at, index.get(w) ?? at);
    }
    low.set(v, lowest);
    if (lowest !== at) return;
    const set: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) {
      onStack.delete(w);
      set.push(w);
    }
    if (set.length > 1 || graph.get(v)?.has(v) === true) out.push(set.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** The folder a file belongs to: its first directory under the root (`.` for files at the root). */
function folderOf(file: string): string {
  const slash = file.indexOf('/');
  return slash < 0 ? '.' : file.slice(0, slash);
}

/** Two folders that import each other, with one import each way as evidence. */
export interface FolderPair {
  /** `a < b`, e.g. `metrics` and `upstream`. */
  folders: readonly [string, string];
  evidence: readonly [string, string];
}

/** Every pair of folders importing each other, sorted by name. */
export function folderPairs(graph: Graph): FolderPair[] {
  const edge = new Map<string, string>();
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const a = folderOf(from);
      const b = folderOf(to);
      if (a !== b && !edge.has(`${a}>${b}`)) edge.set(`${a}>${b}`, `${from} → ${to}`);
    }
  }
  const pairs: FolderPair[] = [];
  for (const [key, one] of edge) {
    const [a, b] = key.split('>') as [string, string];
    const back = edge.get(`${b}>${a}`);
    if (a < b && back !== undefined) pairs.push({ folders: [a, b], evidence: [one, back] });
  }
  return pairs.sort((x, y) => x.folders.join().localeCompare(y.folders.join()));
}
