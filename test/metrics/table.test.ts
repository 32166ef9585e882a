/**
 * The table of metrics is what a proxy exposes: a proxy built the way main.ts
 * builds it (every optional feature on, one probed simulator upstream so the
 * scrape-time gauges have their labels) registers exactly one family per row
 * of src/metrics/table.ts, with the row's type, help and label names, so the
 * reference generated from the table (docs/metrics.md) is the registry's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { installEnvelopeWriter } from '../../src/http/envelope-writer.js';
import { METRICS, METRIC_PREFIX, type MetricDecl } from '../../src/metrics/table.js';
import { startSimulator } from '../../src/sim/index.js';
import { buildStages, type Stages } from '../../src/stages.js';
import { registerSurface } from '../../src/surface.js';
import { within } from '../helpers/until.js';

interface Registered {
  name: string;
  help: string;
  /** prom-client families. */
  labelNames?: readonly string[];
  /** The dense families (src/metrics/collectors.ts): their fixed label sets. */
  series?: ReadonlyArray<Record<string, string>>;
  upperBounds?: readonly number[];
  bounds?: readonly number[];
  get(): Promise<{ type: string; values: Array<{ labels: Record<string, unknown> }> }>;
}

let sim: Awaited<ReturnType<typeof startSimulator>>;
let stages: Stages;
const app = Fastify({ logger: false });
const dir = mkdtempSync(join(tmpdir(), 'chainproxy-table-'));

beforeAll(async () => {
  sim = await startSimulator({ seed: 1, blockIntervalMs: 3_600_000 });
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
  stages = buildStages(config, pino({ level: 'silent' }), Date.now, false);
  installEnvelopeWriter(app, stages.writer);
  await registerSurface(app, config, stages);
  stages.pool.start();
  await within(stages.pool.firstProbe, 'the upstream probed');
  expect(stages.pool.ready()).toBe(true);
});

afterAll(async () => {
  await app.close();
  await stages.pool.close();
  await stages.gate?.limiter.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The row a registered family would have, read from the family itself. */
async function rowOf(m: Registered): Promise<MetricDecl> {
  const snap = await m.get();
  const labels = new Set<string>([...(m.labelNames ?? []), ...Object.keys(m.series?.[0] ?? {})]);
  for (const v of snap.values) for (const k of Object.keys(v.labels)) if (k !== 'le') labels.add(k);
  const buckets = m.upperBounds ?? m.bounds;
  const type = snap.type as MetricDecl['type'];
  return { type, labels: [...labels].sort(), ...(buckets && { buckets: [...buckets] }), help: m.help };
}

describe('the table of metrics', () => {
  it('has one row per family a fully featured proxy registers, with its type, labels, buckets and help', async () => {
    const registered: Record<string, MetricDecl> = {};
    for (const m of stages.prom.registry.getMetricsAsArray() as unknown as Registered[])
      if (m.name.startsWith(METRIC_PREFIX)) registered[m.name.slice(METRIC_PREFIX.length)] = await rowOf(m);
    const rows: Array<[string, MetricDecl]> = Object.entries(METRICS);
    const table = Object.fromEntries(
      rows.map(([name, r]) => [
        name,
        { type: r.type, labels: [...r.labels].sort(), ...(r.buckets && { buckets: [...r.buckets] }), help: r.help },
      ]),
    );
    expect(Object.keys(registered).length).toBeGreaterThan(80);
    expect(registered).toEqual(table);
  });
});
