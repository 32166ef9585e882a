/** Result rows, the printed/markdown table and the JSON file. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './proc.js';

export interface Row {
  scenario: string;
  target: string;
  rps: number | null;
  p50: number | null;
  p99: number | null;
  hitRatio: number | null;
  /** upstream (origin) requests per 1000 client requests */
  upPer1000: number | null;
  /** Server CPU time (user + system) per request, µs, where measured. */
  cpuUs?: number | null;
  note: string;
}

export interface Ratio {
  name: string;
  value: number | null;
  /** human target, e.g. ">= 0.9" */
  goal: string;
  pass: boolean | null;
  detail: string;
}

const f = (v: number | null, d = 0): string => (v === null || !Number.isFinite(v) ? '–' : v.toFixed(d));
const ms = (v: number | null): string => (v === null ? '–' : v < 10 ? v.toFixed(2) : v.toFixed(0));
const pct = (v: number | null): string => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);

export function markdownTable(rows: readonly Row[]): string {
  const head = [
    'scenario',
    'target',
    'req/s',
    'p50 ms',
    'p99 ms',
    'hit ratio',
    'upstream req/1000',
    'server CPU µs/req',
    'notes',
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i >= 2 && i <= 7 ? '---:' : '---')).join('|')}|`];
  for (const r of rows)
    lines.push(
      `| ${[r.scenario, r.target, f(r.rps), ms(r.p50), ms(r.p99), pct(r.hitRatio)].join(' | ')} | ` +
        `${[f(r.upPer1000, 1), f(r.cpuUs ?? null, 1), r.note].join(' | ')} |`,
    );
  return lines.join('\n');
}

export function ratioTable(ratios: readonly Ratio[]): string {
  const lines = ['| ratio | value | target | pass | detail |', '|---|---:|---|---|---|'];
  for (const r of ratios)
    lines.push(
      `| ${r.name} | ${r.value === null ? '–' : r.value.toFixed(3)} | ${r.goal} | ` +
        `${r.pass === null ? '–' : r.pass ? 'yes' : '**NO**'} | ${r.detail} |`,
    );
  return lines.join('\n');
}

export interface RunInfo {
  startedAt: string;
  mode: 'quick' | 'full';
  machine: string;
  blockIntervalMs: number;
  notes: string[];
  wallSeconds: number;
}

export function writeResults(
  info: RunInfo,
  rows: readonly Row[],
  ratios: readonly Ratio[],
): { md: string; paths: string[] } {
  const dir = join(ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const md = [
    `# chainproxy benchmark (${info.mode}, ${info.startedAt})`,
    '',
    `Machine: ${info.machine}. Simulated block interval ` +
      `${info.blockIntervalMs} ms. Wall time ${info.wallSeconds.toFixed(0)} s.`,
    'Absolute numbers depend on a shared, noisy machine; compare rows of the same run (ratios).',
    '',
    markdownTable(rows),
    '',
    '## Ratios and targets',
    '',
    ratioTable(ratios),
    ...(info.notes.length > 0 ? ['', '## Notes', '', ...info.notes.map((n) => `- ${n}`)] : []),
    '',
  ].join('\n');
  const paths = [join(dir, 'latest.md'), join(dir, 'latest.json')];
  writeFileSync(paths[0]!, md);
  writeFileSync(paths[1]!, JSON.stringify({ ...info, rows, ratios }, null, 2) + '\n');
  return { md, paths };
}
