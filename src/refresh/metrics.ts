/** The metric of refresh-ahead on a new head (the touched trigger counts into invalidation's own). */
import { Counter, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../metrics/prometheus.js';

export function registerRefreshMetrics(registry: Registry): (outcome: 'ok' | 'error') => void {
  const refreshes = new Counter({
    name: `${METRIC_PREFIX}refresh_ahead_total`,
    help: 'Entries refreshed ahead of clients on a new head, by outcome.',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of ['ok', 'error']) refreshes.inc({ outcome }, 0);
  return (outcome) => refreshes.inc({ outcome });
}
