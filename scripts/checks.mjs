#!/usr/bin/env node
/**
 * The static checks of `npm test`, run at once (each is one process on one
 * core): formatting (prettier --check), types (tsc --noEmit, incremental) and
 * unused code (knip). Each one's output is printed whole, in this order, once
 * all have ended; exit 1 when any failed.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './build.mjs';

const bin = (pkg, path) => join(ROOT, 'node_modules', pkg, path);
const CHECKS = [
  ['prettier', bin('prettier', 'bin/prettier.cjs'), ['--check', '--log-level', 'warn', '.']],
  [
    'tsc',
    bin('typescript', 'bin/tsc'),
    ['--noEmit', '-p', '.', '--incremental', '--tsBuildInfoFile', 'node_modules/.cache/chainproxy/tsbuildinfo'],
  ],
  ['knip', bin('knip', 'bin/knip.js'), []],
];

const results = await Promise.all(
  CHECKS.map(
    ([name, script, args]) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (out += d));
        child.on('close', (code) => resolve({ name, code, out }));
      }),
  ),
);
for (const r of results) {
  if (r.out !== '') process.stdout.write(r.out.endsWith('\n') ? r.out : `${r.out}\n`);
  if (r.code !== 0) process.stderr.write(`checks: ${r.name} failed (exit ${r.code})\n`);
}
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
