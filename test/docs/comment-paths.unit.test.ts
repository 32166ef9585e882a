/**
 * Comments that name a file name one that exists: a path under a top folder
 * of the repository (`src/cache/entry.ts`, `bench/lib/nginx.ts`) must exist,
 * and a bare file name (`head-guard.ts`) must be the name of some file of
 * the repository. Paths with placeholders (`src/endpoints/<name>.ts`, `*.ts`)
 * are patterns, not names.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCANNED = ['src', 'bench', 'scripts', 'test'];
const SKIP = new Set(['node_modules', 'dist', 'results', 'fixtures']);

function files(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) files(rel, out);
    else out.push(rel);
  }
  return out;
}

/** The comments of a TypeScript source: `// …` lines and `/* … *\/` blocks (strings are not comments). */
function comments(text: string): string[] {
  return [...text.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`\w])\/\/[^\n]*/g)].map((m) => m[0]);
}

const PATH = /\b((?:src|test|docs|bench|scripts|config)\/[\w./<>*-]+\.(?:ts|mjs|md|json|yml))\b/g;
const BARE = /(?<![\w./<>*-])([\w-]+\.(?:ts|mjs))\b/g;

describe('comments naming files', () => {
  const all = SCANNED.flatMap((d) => files(d));
  const names = new Set(all.map((f) => f.slice(f.lastIndexOf('/') + 1)));
  const sources = all.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));

  it('scan the sources', () => {
    expect(sources.length).toBeGreaterThan(300);
  });

  it('name paths that exist', () => {
    const missing: string[] = [];
    for (const f of sources) {
      for (const c of comments(readFileSync(join(ROOT, f), 'utf8'))) {
        for (const m of c.matchAll(PATH)) {
          const path = m[1]!;
          if (/[<*]/.test(path)) continue;
          if (!existsSync(join(ROOT, path))) missing.push(`${f}: ${path}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('name files that exist by their bare name', () => {
    const missing: string[] = [];
    for (const f of sources) {
      for (const c of comments(readFileSync(join(ROOT, f), 'utf8'))) {
        for (const m of c.matchAll(BARE)) {
          const name = m[1]!;
          if (name === 'test.ts' || name === 'unit.test.ts' || names.has(name)) continue;
          missing.push(`${f}: ${name}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
