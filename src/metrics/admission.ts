/**
 * chainproxy_cache_admissions_total{verdict}: Redis hits promoted into the
 * memory tier (promoted: read before, and more often than what it evicts)
 * or answered from the Redis value alone (refused). Both series from the start.
 */
import type { Registry } from 'prom-client';
import { counter } from './declare.js';

export function registerAdmissionMetrics(registry: Registry): (promoted: boolean) => void {
  const admissions = counter(registry, 'cache_admissions_total');
  const promoted = admissions.labels({ verdict: 'promoted' });
  const refused = admissions.labels({ verdict: 'refused' });
  promoted.inc(0);
  refused.inc(0);
  return (p) => (p ? promoted : refused).inc();
}
