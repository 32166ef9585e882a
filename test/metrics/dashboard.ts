/** Reading the Grafana dashboard and the metric names its PromQL uses. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const DASHBOARD_PATH = fileURLToPath(
  new URL('../../config/grafana/dashboards/chainproxy.json', import.meta.url),
);

interface DashboardTarget {
  refId?: string;
  expr?: string;
  datasource?: { type?: string; uid?: string };
}

export interface DashboardPanel {
  id: number;
  type: string;
  title: string;
  datasource?: { type?: string; uid?: string };
  targets?: DashboardTarget[];
  panels?: DashboardPanel[];
}

interface DashboardVariable {
  type: string;
  name: string;
  query?: string | { query?: string };
  datasource?: { type?: string; uid?: string };
  includeAll?: boolean;
  multi?: boolean;
  allValue?: string;
}

export interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  panels: DashboardPanel[];
  templating: { list: DashboardVariable[] };
}

/** The dashboard's datasource reference: its `datasource` variable. */
export const DATASOURCE_UID = '${datasource}';

/** An expression as Grafana sends it with these variable values (`.*` is what "All" sends). */
export function withVariables(expr: string, values: { job: string; instance: string }): string {
  return expr.replaceAll('$job', values.job).replaceAll('$instance', values.instance);
}

export function loadDashboard(): Dashboard {
  return JSON.parse(readFileSync(DASHBOARD_PATH, 'utf8')) as Dashboard;
}

/** Every non-row panel, including panels nested in collapsed rows. */
export function allPanels(d: Dashboard): DashboardPanel[] {
  return d.panels.flatMap((p) => (p.type === 'row' ? (p.panels ?? []) : [p]));
}

export interface PanelQuery {
  panel: string;
  refId: string;
  expr: string;
}

export function dashboardQueries(d: Dashboard = loadDashboard()): PanelQuery[] {
  return allPanels(d).flatMap((p) =>
    (p.targets ?? []).map((t) => ({ panel: p.title, refId: t.refId ?? '?', expr: t.expr ?? '' })),
  );
}

const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
]);

/** Metric names referenced by a PromQL expression (selectors only: not functions, labels, keywords). */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // string literals
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\[[^\]]*\]/g, ' ') // range / subquery windows
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' '); // label lists
  const names = new Set<string>();
  for (const m of stripped.matchAll(/(?<![\w:.])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    const name = m[1] ?? '';
    if (m[2] !== undefined) continue; // function or aggregation call
    if (KEYWORDS.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return [...names];
}

/** Sample names a rendered exposition can contain (histograms add _bucket, _sum, _count). */
export function exposedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const m of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name = '', type] = m;
    names.add(name);
    if (type === 'histogram' || type === 'summary') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
  }
  return names;
}
