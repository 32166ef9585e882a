/**
 * The sources as the processes the tests start run them: src/ type-stripped
 * by esbuild into `.test-build/` (gitignored), laid out as src/ is (a module's
 * relative paths, such as ../../package.json, resolve as from src/ and dist/),
 * with src/'s other files copied beside them. A started process then costs
 * what `npm start` costs, not tsx compiling every module in every process
 * (about 0.8 s of CPU per start, most of the suite's process tests).
 *
 * Built once per test run by the integration project's global setup; skipped
 * when the stamp (a hash of every file under src/) says it is current, so
 * runs at once over the same sources do not rebuild under each other.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');
const OUT = join(ROOT, '.test-build');
const STAMP = join(OUT, '.stamp');

/** The compiled counterpart of a source entry ('src/main.ts' → '.test-build/main.js'), relative to the root. */
export function built(entry: string): string {
  if (!entry.startsWith('src/') || !entry.endsWith('.ts')) throw new Error(`not a source entry: ${entry}`);
  return join('.test-build', entry.slice('src/'.length, -'.ts'.length) + '.js');
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

function stampOf(all: string[]): string {
  const h = createHash('sha256');
  for (const f of [...all].sort()) h.update(relative(SRC, f)).update('\0').update(readFileSync(f)).update('\0');
  return h.digest('hex');
}

export async function buildForTests(): Promise<void> {
  const all = files(SRC);
  const stamp = stampOf(all);
  try {
    if (readFileSync(STAMP, 'utf8') === stamp) return;
  } catch {
    // not built yet
  }
  const tmp = `${OUT}.${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  await build({
    entryPoints: all.filter((f) => f.endsWith('.ts')),
    outdir: tmp,
    outbase: SRC,
    bundle: false,
    format: 'esm',
    platform: 'node',
    tsconfig: join(ROOT, 'tsconfig.json'),
    logLevel: 'error',
  });
  for (const f of all.filter((f) => !f.endsWith('.ts'))) {
    const to = join(tmp, relative(SRC, f));
    mkdirSync(join(to, '..'), { recursive: true });
    cpSync(f, to);
  }
  writeFileSync(join(tmp, '.stamp'), stamp);
  rmSync(OUT, { recursive: true, force: true });
  renameSync(tmp, OUT);
}
