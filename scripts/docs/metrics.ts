/**
 * The metrics reference, read from the registry of a proxy built the way
 * main.ts builds it (every optional feature on, one probed simulator
 * upstream so the scrape-time gauges have their labels), so a metric
 * registered anywhere appears without being listed here.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { installEnvelopeWriter } from '../../src/http/envelope-writer.js';
import { registerSurface } from '../../src/surface.js';
import { startSimulator } from '../../src/sim/index.js';
import { buildStages } from '../../src/stages.js';

export interface MetricDoc {
  name: string;
  type: string;
  labels: readonly string[];
  help: string;
}

interface RegisteredMetric {
  name: string;
  help: string;
  type?: unknown;
  /** prom-client metrics. */
  labelNames?: readonly string[];
  /** The proxy's dense collectors (src/metrics/collectors.ts): their fixed label sets. */
  series?: ReadonlyArray<Record<string, string>>;
  /** Histogram buckets: prom-client's, then the dense histogram's. */
  upperBounds?: readonly number[];
  bounds?: readonly number[];
  get(): Promise<{ type: string; values: Array<{ labels: Record<string, unknown> }> }>;
}

/** Every `chainproxy_*` metric of a fully featured proxy, sorted by name. */
export async function collectMetrics(): Promise<MetricDoc[]> {
  const sim = await startSimulator({ seed: 1, blockIntervalMs: 3_600_000 });
  const dir = mkdtempSync(join(tmpdir(), 'chainproxy-docs-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ apiKeys: [{ name: 'docs', key: 'docs-key-0123456789', max: 10 }] }));
  const config = loadConfig(
    {
      UPSTREAM_URLS: sim.url,
      PASSTHROUGH: '/legacy=http://127.0.0.1:9',
      UPSTREAM_PROBE_INTERVAL_MS: '100',
      LOG_LEVEL: 'silent',
    },
    ['--config', file],
  );
  const stages = buildStages(config, pino({ level: 'silent' }), Date.now, false);
  const app = Fastify({ logger: false });
  try {
    installEnvelopeWriter(app, stages.writer);
    await registerSurface(app, config, stages);
    stages.pool.start();
    const until = Date.now() + 10_000;
    while (!stages.pool.ready() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const out: MetricDoc[] = [];
    for (const m of stages.prom.registry.getMetricsAsArray() as unknown as RegisteredMetric[]) {
      if (!m.name.startsWith('chainproxy_')) continue;
      const snap = await m.get();
      const labels = new Set<string>([...(m.labelNames ?? []), ...Object.keys(m.series?.[0] ?? {})]);
      for (const v of snap.values)
        for (const k of Object.keys(v.labels)) if (k !== 'le' && k !== 'quantile') labels.add(k);
      const buckets = m.upperBounds ?? m.bounds ?? [];
      const type =
        buckets.length > 0
          ? `${snap.type} (${seconds(buckets[0]!)} … ${seconds(buckets[buckets.length - 1]!)})`
          : snap.type;
      out.push({ name: m.name, type, labels: [...labels], help: m.help });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  } finally {
    await app.close();
    await stages.pool.close();
    await stages.gate?.limiter.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
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
