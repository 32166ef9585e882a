#!/usr/bin/env node
/**
 * Writes test/long-files.txt, the ordering hint of test/helpers/sequencer.ts:
 * the integration files that took longest in a run, longest first, from a
 * vitest JSON report:
 *   npx vitest run --reporter=json --outputFile=/tmp/vitest.json
 *   node scripts/long-files.mjs /tmp/vitest.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './build.mjs';

const KEPT = 40;
const report = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8'));
const rows = report.testResults
  .map((t) => ({ path: relative(ROOT, t.name), s: (t.endTime - t.startTime) / 1000 }))
  .filter((r) => !r.path.endsWith('.unit.test.ts'))
  .sort((a, b) => b.s - a.s)
  .slice(0, KEPT);
const header =
  '# The longest integration test files of a run, longest first: they start first\n' +
  '# (test/helpers/sequencer.ts). Refresh with scripts/long-files.mjs.\n';
writeFileSync(join(ROOT, 'test', 'long-files.txt'), header + rows.map((r) => r.path).join('\n') + '\n');
