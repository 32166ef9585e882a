/**
 * chainproxy_cache_admissions_total{verdict}: Redis hits promoted into the
 * memory tier (promoted: read before, and more often than what it evicts)
 * or answered from the Redis value alone (refused). Both series from the start.
 */
import { Counter, type Registry } from 'prom-client';
import { METRIC_PREFIX } from './prometheus.js';

export function registerAdmissionMetrics(registry: Registry): (promoted: boolean) => void {
  const admissions = new Counter({
    name: `${METRIC_PREFIX}cache_admissions_total`,
    help:
      'Redis-tier hits by admission verdict: promoted into the memory tier (read before, and more ' +
      'often than the entry it evicts), or refused (answered from the Redis value alone).',
    labelNames: ['verdict'] as const,
    registers: [registry],
  });
  const promoted = admissions.labels({ verdict: 'promoted' });
  const refused = admissions.labels({ verdict: 'refused' });
  promoted.inc(0);
  refused.inc(0);
  return (p) => (p ? promoted : refused).inc();
}
