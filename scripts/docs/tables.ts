/**
 * Reference tables made from the code's own tables: settings (grouped by
 * topic), error catalogue, default cache policies, the endpoints, the purge tags.
 */
import { DEFAULT_POLICIES } from '../../src/catalogue/policies.js';
import { ENDPOINT_NAMES } from '../../src/catalogue/types.js';
import { GROUPS, groupOf } from '../../src/config/groups.js';
import { configTable } from '../../src/config/help.js';
import { LIVE, LIVE_IF, RESTART } from '../../src/config/reload-classes.js';
import { EDGE_ERRORS, ERRORS } from '../../src/errors/catalog.js';
import { ENDPOINTS } from '../../src/endpoints/index.js';
import { TAG_KINDS, tagShapes } from '../../src/purge/tag-vocabulary.js';

/** `configTable()` split into one table per topic: the --help groups (src/config/groups.ts), in their order. */
export function configByTopic(): string {
  const [head, rule, ...rows] = configTable().split('\n');
  const groups = new Map<string, string[]>();
  for (const row of rows) {
    const env = /^\| `([^`]+)` \|/.exec(row)?.[1] ?? '';
    const title = groupOf(env)?.title ?? 'Other';
    groups.set(title, [...(groups.get(title) ?? []), row]);
  }
  const out: string[] = [];
  for (const title of [...GROUPS.map((g) => g.title), 'Other']) {
    const mine = groups.get(title);
    if (mine === undefined) continue;
    out.push(`### ${title}`, '', head ?? '', rule ?? '', ...mine, '');
  }
  return out.join('\n').trimEnd();
}

/** What SIGHUP does with each setting (src/config/reload-classes.ts). */
export function reloadTable(): string {
  const names = (list: readonly string[]): string =>
    list.map((n) => (LIVE_IF[n] === undefined ? `\`${n}\`` : `\`${n}\` (${LIVE_IF[n].when})`)).join(', ');
  return [
    '| On SIGHUP | Settings |',
    '|---|---|',
    `| applied live | ${names(LIVE)} |`,
    `| kept until a restart (named in a warning) | ${names(RESTART)} |`,
  ].join('\n');
}

/** Every code of the catalogue once, with its status, message and kind names. */
export function errorTable(): string {
  const byCode = new Map<number, { status: number; msg: string; kinds: string[] }>();
  for (const [kind, e] of [...Object.entries(ERRORS), ...Object.entries(EDGE_ERRORS)]) {
    const seen = byCode.get(e.code);
    if (seen === undefined) byCode.set(e.code, { status: e.status, msg: e.msg, kinds: [kind] });
    else seen.kinds.push(kind);
  }
  const rows = ['| code | status | `msg` | name in `src/errors/catalog.ts` |', '|---|---|---|---|'];
  for (const [code, e] of [...byCode].sort((a, b) => a[0] - b[0]))
    rows.push(`| ${code} | ${e.status} | ${e.msg} | ${e.kinds.map((k) => `\`${k}\``).join(', ')} |`);
  return rows.join('\n');
}

/** A duration in the largest unit that divides it. */
function duration(ms: number): string {
  if (ms === 0) return '0';
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['min', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms % size === 0) return `${ms / size} ${unit}`;
  }
  return `${ms} ms`;
}

export function policyTable(): string {
  const rows = [
    '| endpoint | ttl | final | volatile | stale-while-revalidate | stale-if-error | negative | stale on new head |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const name of ENDPOINT_NAMES) {
    const p = DEFAULT_POLICIES[name];
    rows.push(
      `| ${name} | ` +
        `${[p.ttlMs, p.finalTtlMs, p.volatileTtlMs, p.swrMs, p.sieMs, p.negativeTtlMs].map(duration).join(' | ')} | ` +
        `${p.invalidateOnHead ? 'yes' : 'no'} |`,
    );
  }
  return rows.join('\n');
}

const PAGED = new Set(['page', 'page_size']);

/** The parameters cell: required ones in bold, notes and defaults after the name, `paged` for page/page_size. */
function paramsCell(m: (typeof ENDPOINTS)[number]): string {
  const { notes, oneOf } = m.reference;
  const out: string[] = [];
  if (oneOf !== undefined) out.push(`exactly one of ${oneOf.map((n) => `**\`${n}\`**`).join(' / ')}`);
  const named = m.params
    .filter((p) => !PAGED.has(p.name) && !(oneOf ?? []).includes(p.name))
    .map((p) => {
      const name = p.required ? `**\`${p.name}\`**` : `\`${p.name}\``;
      const note = notes?.[p.name] ?? (p.defaultValue !== undefined ? `default ${p.defaultValue}` : undefined);
      return note === undefined ? name : `${name} (${note})`;
    });
  if (named.length > 0) out.push(named.join(', '));
  const cell = out.join(', ');
  const paged = m.params.some((p) => p.name === 'page');
  return paged ? (cell === '' ? 'paged' : `${cell}; paged`) : cell === '' ? '–' : cell;
}

/** The endpoint table of docs/api.md, in the registry's order, from each module's parameters and reference. */
export function endpointTable(): string {
  const rows = ['| # | Path | Parameters | `data` |', '|---|---|---|---|'];
  ENDPOINTS.forEach((m, i) => rows.push(`| ${i + 1} | \`${m.path}\` | ${paramsCell(m)} | ${m.reference.data} |`));
  return rows.join('\n');
}

/** The tag vocabulary: each kind, what it names, and the endpoints whose answers carry it. */
export function purgeTagTable(): string {
  const rows = ['| tag | names | answers that carry it (some only with some parameters) |', '|---|---|---|'];
  for (const [name, kind] of Object.entries(TAG_KINDS)) {
    const carriers = ENDPOINTS.filter((e) => e.dependsOn.some((d) => kind.from.includes(d.on))).map(
      (e) => `\`${e.path}\``,
    );
    const shapes = tagShapes(name, kind).map((t) => `\`${t}\``);
    rows.push(`| ${shapes.join(', ')} | ${kind.doc} | ${carriers.join(', ') || '(see the other spelling)'} |`);
  }
  return rows.join('\n');
}
