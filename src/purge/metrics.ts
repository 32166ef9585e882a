/**
 * Purge metrics on the shared registry, every series from the start:
 *
 *   chainproxy_purges_total{kind,mode,origin}   purges applied here: asked of this replica (here) or heard on
 *                                               the bus (fleet)
 *   chainproxy_purged_entries_total{kind,mode}  memory-tier entries they reached (dropped, or expired for soft)
 *   chainproxy_purge_marks                      marks held (bounded: src/purge/marks.ts)
 *
 * The fleet's purges are `sum(chainproxy_purges_total{origin="here"})`.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../metrics/prometheus.js';
import type { PurgeMode } from './marks.js';
import type { PurgeKind } from './request.js';

export type PurgeOrigin = 'here' | 'fleet';

export interface PurgeMetrics {
  purged(kind: PurgeKind, mode: PurgeMode, origin: PurgeOrigin, entries: number): void;
}

const KINDS: readonly PurgeKind[] = ['key', 'tag', 'all'];
const MODES: readonly PurgeMode[] = ['hard', 'soft'];

export function registerPurgeMetrics(registry: Registry, marks: () => number): PurgeMetrics {
  const purges = new Counter({
    name: `${METRIC_PREFIX}purges_total`,
    help:
      'Purges applied by this replica, by kind (key, tag, all), mode (hard, ' +
      'soft) and origin (here: asked of this replica; fleet: heard on the bus).',
    labelNames: ['kind', 'mode', 'origin'] as const,
    registers: [registry],
  });
  const entries = new Counter({
    name: `${METRIC_PREFIX}purged_entries_total`,
    help:
      "Entries of this replica's memory tier reached by purges, by kind and " +
      'mode (hard: dropped; soft: expired, served stale while fetched again).',
    labelNames: ['kind', 'mode'] as const,
    registers: [registry],
  });
  for (const kind of KINDS) {
    for (const mode of MODES) {
      entries.inc({ kind, mode }, 0);
      for (const origin of ['here', 'fleet'] as const) purges.inc({ kind, mode, origin }, 0);
    }
  }
  new Gauge({
    name: `${METRIC_PREFIX}purge_marks`,
    help: 'Purge marks held (targets with their purge times; bounded in number and age).',
    registers: [registry],
    collect() {
      this.set(marks());
    },
  });
  return {
    purged(kind, mode, origin, n) {
      purges.inc({ kind, mode, origin });
      entries.inc({ kind, mode }, n);
    },
  };
}
