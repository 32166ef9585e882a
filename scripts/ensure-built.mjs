#!/usr/bin/env node
/**
 * Runs before `npm start` (prestart) and `npm pack` (prepack): builds dist/
 * when it is missing or older than any file under src/ or the build
 * configuration, so `npm install && npm start` works on a fresh clone and an
 * edited source is never served stale. Does nothing where there is no src/
 * (an installed package ships dist/ only).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT, SRC, STAMP, build } from './build.mjs';

/** Newest modification time (ms) of a file or of any file below a directory. */
function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)));
  return max;
}

/** Why dist/ must be rebuilt, or null when it is up to date. */
export function staleReason() {
  if (!existsSync(STAMP)) return 'dist/ has not been built';
  const built = statSync(STAMP).mtimeMs;
  const inputs = [
    SRC,
    join(ROOT, 'tsconfig.build.json'),
    join(ROOT, 'tsconfig.json'),
    join(ROOT, 'scripts', 'build.mjs'),
  ];
  for (const p of inputs)
    if (existsSync(p) && newest(p) > built) return `${p.slice(ROOT.length + 1)} changed since the last build`;
  return null;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && existsSync(SRC)) {
  const why = staleReason();
  if (why !== null) {
    process.stderr.write(`building dist/ (${why})\n`);
    build();
  }
}
