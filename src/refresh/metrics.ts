/** The metric of refresh-ahead on a new head (the touched trigger counts into invalidation's own). */
import type { Registry } from 'prom-client';
import { counter } from '../metrics/declare.js';

export function registerRefreshMetrics(registry: Registry): (outcome: 'ok' | 'error') => void {
  const refreshes = counter(registry, 'refresh_ahead_total', { start: [{ outcome: 'ok' }, { outcome: 'error' }] });
  return (outcome) => refreshes.inc({ outcome });
}
