/**
 * Every sample name the proxy can expose: the shared registry exercised with
 * fake sources (default process metrics included) plus every metric a fully
 * featured proxy registers (its table, listed by scripts/docs/metrics.ts), histograms with their
 * _bucket, _sum and _count series.
 */
import { createPrometheusMetrics } from '../../src/metrics/prometheus.js';
import { collectMetrics } from '../../scripts/docs/metrics.js';
import { exposedNames } from './dashboard.js';
import { exerciseAll, FakeSources } from './fixtures.js';

export async function knownNames(): Promise<Set<string>> {
  const prom = createPrometheusMetrics(new FakeSources());
  exerciseAll(prom.metrics);
  const known = exposedNames(await prom.render());
  for (const m of await collectMetrics()) {
    known.add(m.name);
    if (m.type.startsWith('histogram')) for (const s of ['_bucket', '_sum', '_count']) known.add(m.name + s);
  }
  return known;
}
