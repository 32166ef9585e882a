/**
 * The metrics reference, generated from the one table of metrics
 * (src/metrics/table.ts); test/metrics/table.test.ts checks that a fully
 * featured proxy registers exactly its rows.
 */
import { METRICS, METRIC_PREFIX, type MetricDecl } from '../../src/metrics/table.js';

export interface MetricDoc {
  name: string;
  type: string;
  labels: readonly string[];
  help: string;
}

/** Every `chainproxy_*` metric, sorted by name; a histogram's type shows its bucket range. */
export function collectMetrics(): MetricDoc[] {
  const rows: Array<[string, MetricDecl]> = Object.entries(METRICS);
  return rows
    .map(([name, m]) => {
      const b = m.buckets ?? [];
      const type = b.length > 0 ? `${m.type} (${seconds(b[0]!)} … ${seconds(b[b.length - 1]!)})` : m.type;
      return { name: `${METRIC_PREFIX}${name}`, type, labels: m.labels, help: m.help };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** A bucket bound in seconds, as people say it. */
function seconds(s: number): string {
  if (s < 0.001) return `${Math.round(s * 1e6)} µs`;
  if (s < 1) return `${+(s * 1000).toPrecision(3)} ms`;
  return `${s} s`;
}

const esc = (s: string): string => s.replaceAll('|', '\\|');

export function metricsTable(metrics: readonly MetricDoc[]): string {
  const rows = ['| Metric | Type | Labels | Meaning |', '|---|---|---|---|'];
  for (const m of metrics)
    rows.push(`| \`${m.name}\` | ${m.type} | ${m.labels.length > 0 ? m.labels.join(', ') : '–'} | ${esc(m.help)} |`);
  rows.push(
    '| `process_*`, `nodejs_*` | various | – | prom-client default process and ' +
      'runtime metrics (CPU, memory, event loop lag, GC, handles), without the ' +
      'three `nodejs_active_*_total` gauges (promtool rejects `_total` on gauges). |',
  );
  return rows.join('\n');
}
