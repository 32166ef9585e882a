/** `--help` text (grouped by topic, groups.ts) and the README configuration table, both from fields.ts. */
import { blockDetail } from '../endpoints/block-detail.js';
import { OPTIONS } from './cli.js';
import { defaultConfig } from './defaults.js';
import { FIELDS, getPath, type Field } from './fields.js';
import { GROUPS, groupOf } from './groups.js';

function defaultOf(field: Field): string {
  if (field.key === 'publicBaseUrl') return 'http://localhost:$PORT';
  if (field.key === 'shutdownTimeoutMs') return 'REQUEST_TIMEOUT_MS + 1000';
  if (field.key === 'missBudget') return 'RATE_LIMIT_MAX / 5, rounded up (120)';
  const v = getPath(defaultConfig(), field.key);
  const empty = typeof v === 'object' && v !== null && Object.keys(v).length === 0;
  if (v === null || empty) return '(none)';
  if (field.kind.type === 'bytes' && typeof v === 'number') {
    if (v >= 1024 * 1024 && v % (1024 * 1024) === 0) return `${v / (1024 * 1024)}MiB`;
    if (v >= 1024 && v % 1024 === 0) return `${v / 1024}KiB`;
  }
  return Array.isArray(v) ? v.join(',') : String(v);
}

const EXTRA = [
  {
    env: 'CONFIG_FILE',
    key: '',
    def: '(none)',
    help:
      'YAML (.yaml/.yml) or JSON (.json) file with the same settings under their keys (upstream:, redis:, ' +
      'rateLimit:, limits:, http:, passthrough:, simulator:, top-level port, host, ...), per-endpoint ' +
      'cache policies under policies:, pages under pages:, and API keys with their own rate-limit budgets ' +
      'under apiKeys:. Environment variables win over the file. Unknown keys are errors.',
  },
];

export function helpText(): string {
  const lines = [
    'chainproxy: caching reverse proxy for the Chain Data Query Service',
    '',
    'Usage: chainproxy [--config FILE]   (in a clone: npm start -- [--config FILE])',
    '       chainproxy --check [--config FILE]   (test the settings and reach every upstream and Redis, then exit)',
    '       chainproxy --help | --version',
    '',
    'Options:',
    ...OPTIONS.map((o) => `  ${o.flag.padEnd(15)} ${o.help}`),
    '',
    'Settings are environment variables (empty = unset) or keys of an optional CONFIG_FILE (the environment wins).',
    'Variables that resemble a setting but are not one (UPSTREAM_URL, REDIS_PASSWORD) stop start-up.',
  ];
  const rows = [...FIELDS.map((f) => ({ env: f.env, key: f.key, def: defaultOf(f), help: f.help })), ...EXTRA];
  const topics = [...GROUPS.map((g) => g.title), 'Other'];
  for (const title of topics) {
    const members = rows.filter((r) => (groupOf(r.env)?.title ?? 'Other') === title);
    if (members.length === 0) continue;
    lines.push('', `${title}:`);
    for (const r of members) {
      lines.push(`  ${r.env}${r.key ? `  (file: ${r.key})` : ''}`);
      lines.push(`      default: ${r.def}`);
      lines.push(`      ${r.help}`);
    }
  }
  lines.push(
    '',
    'CONFIG_FILE policies: <endpoint name>: { ttlMs, finalTtlMs, ' +
      'volatileTtlMs, swrMs, sieMs, negativeTtlMs, invalidateOnHead }',
    `e.g. policies: { "${blockDetail.path}": { finalTtlMs: 604800000 } }`,
    'CONFIG_FILE pages: <page name>: { params, exactlyOne, parts: { <part>: { ' +
      'endpoint, query, required, when, internal } } } (docs/pages.md)',
    'CONFIG_FILE apiKeys: - { name, key (or sha256: hex of the key), max, windowMs } (X-API-Key; budget per key)',
    'CONFIG_FILE creditCosts: <endpoint name or pages/<page>>: { hit, miss } (credit prices of X-API-Key requests)',
    '',
  );
  return lines.join('\n');
}

/** The configuration reference as a markdown table (the Configuration section of README.md). */
export function configTable(): string {
  const esc = (s: string): string => s.replaceAll('|', '\\|');
  const out = ['| Variable | File key | Default | Meaning |', '|---|---|---|---|'];
  for (const f of FIELDS) out.push(`| \`${f.env}\` | \`${f.key}\` | \`${esc(defaultOf(f))}\` | ${esc(f.help)} |`);
  for (const e of EXTRA) out.push(`| \`${e.env}\` | | ${e.def} | ${esc(e.help)} |`);
  return out.join('\n');
}
