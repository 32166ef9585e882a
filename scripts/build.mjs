#!/usr/bin/env node
/**
 * `npm run build`: compile src/ to dist/ with tsc (tsconfig.build.json, source
 * maps with inlined sources), then copy every file under src/ that is not
 * TypeScript (pages, templates, data read at run time) to the same place under
 * dist/, so compiled code finds it beside itself as the sources do. dist/ is
 * emptied first: a deleted source leaves no stale module behind. Emit only
 * (--noCheck): type checking is `npm run typecheck`, part of `npm test`, and a
 * first `npm start` does not wait for it.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SRC = join(ROOT, 'src');
export const DIST = join(ROOT, 'dist');
/** Written last; its mtime is the time the build started. */
export const STAMP = join(DIST, '.build-stamp');

/** Non-TypeScript files under src/, as paths relative to it. */
export function assets(dir = SRC) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...assets(p));
    else if (!e.name.endsWith('.ts')) out.push(relative(SRC, p));
  }
  return out;
}

export function build() {
  const started = new Date();
  rmSync(DIST, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--noCheck'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (r.status !== 0) {
    process.stderr.write('build: tsc failed\n');
    process.exit(r.status ?? 1);
  }
  for (const rel of assets()) {
    mkdirSync(dirname(join(DIST, rel)), { recursive: true });
    cpSync(join(SRC, rel), join(DIST, rel));
  }
  // A source saved while tsc ran is newer than the stamp, so the next start rebuilds.
  writeFileSync(STAMP, `${started.toISOString()}\n`);
  utimesSync(STAMP, started, started);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) build();
