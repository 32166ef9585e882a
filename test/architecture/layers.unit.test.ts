/**
 * Layers that read one way: no import cycle among the source files (type
 * imports included), and no two folders of src/ importing each other unless
 * the pair is in the table of docs/architecture.md ("Folders that import each
 * other"), which says why; at most four such pairs. A folder is a directory
 * directly under src/ with everything below it (src/stream/activity/ is part
 * of stream/); the files at src/ itself (the composition root) are the folder `.`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, folderPairs, readGraph, specifiersOf, type Graph } from './import-graph.js';

const ROOT = join(import.meta.dirname, '../..');
const MAX_PAIRS = 4;

/** The pairs the architecture document allows: rows `| \`a/\` ↔ \`b/\` | why |`. */
function documentedPairs(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const pairs: string[] = [];
  for (const m of doc.matchAll(/^\| `([\w.-]+)\/` ↔ `([\w.-]+)\/` \| \S/gm)) {
    const [a, b] = [m[1] ?? '', m[2] ?? ''].sort();
    pairs.push(`${a} ↔ ${b}`);
  }
  return pairs;
}

const graphOf = (edges: Record<string, string[]>): Graph =>
  new Map(Object.entries(edges).map(([k, v]) => [k, new Set(v)]));

describe('the checks themselves', () => {
  it('read every kind of import, and not comments or strings', () => {
    const text = [
      "import type { A } from './a.js';",
      "import { type B, C } from '../b.js';",
      "export type { D } from './d.js';",
      "export * from './e.js';",
      "import {\n  f,\n} from './f.js';",
      "const g = await import('./g.js');",
      "// import { h } from './h.js';",
      'const i = "import { i } from \'./i.js\'";',
    ].join('\n');
    expect(specifiersOf(text)).toEqual(['./a.js', '../b.js', './d.js', './e.js', './f.js', './g.js']);
  });

  it('find a cycle through type imports, and a file importing itself', () => {
    const g = graphOf({
      'x/a.ts': ['y/b.ts'],
      'y/b.ts': ['x/c.ts'],
      'x/c.ts': ['x/a.ts'],
      'z/d.ts': ['z/d.ts'],
      'z/e.ts': ['x/a.ts'],
    });
    expect(cycles(g)).toEqual(expect.arrayContaining([['x/a.ts', 'x/c.ts', 'y/b.ts'], ['z/d.ts']]));
    expect(cycles(g)).toHaveLength(2);
    expect(cycles(graphOf({ 'a.ts': ['b.ts'], 'b.ts': ['c.ts'], 'c.ts': [] }))).toEqual([]);
  });

  it('find folders importing each other, a subfolder counting as its folder', () => {
    const g = graphOf({
      'x/a.ts': ['y/b.ts'],
      'y/deep/b.ts': ['x/c.ts'],
      'y/b.ts': [],
      'x/c.ts': [],
      'main.ts': ['x/a.ts'],
    });
    expect(folderPairs(g)).toEqual([{ folders: ['x', 'y'], evidence: ['x/a.ts → y/b.ts', 'y/deep/b.ts → x/c.ts'] }]);
  });
});

describe('the source files', () => {
  const graph = readGraph(join(ROOT, 'src'));

  it('are all read, type imports included', () => {
    expect(graph.size).toBeGreaterThan(200);
    // `import type` only: the catalogue's request type names its endpoint module's types.
    expect(graph.get('catalogue/types.ts')).toContain('endpoints/types.ts');
    expect(graph.get('endpoints/index.ts')).toContain('endpoints/tx-list.ts');
  });

  it('import no cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('have no folders importing each other but the documented ones, at most four', () => {
    const allowed = documentedPairs();
    expect(allowed.length).toBeLessThanOrEqual(MAX_PAIRS);
    const found = folderPairs(graph);
    const undocumented = found.filter((p) => !allowed.includes(p.folders.join(' ↔ ')));
    expect(undocumented, 'folders importing each other that docs/architecture.md does not list').toEqual([]);
    // A pair that no longer imports both ways leaves the table.
    expect(found.map((p) => p.folders.join(' ↔ ')).sort()).toEqual([...allowed].sort());
  });
});
