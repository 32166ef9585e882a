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
import type { Registry } from 'prom-client';
import { counter, gauge } from '../metrics/declare.js';
import type { PurgeMode } from './marks.js';
import type { PurgeKind } from './request.js';

export type PurgeOrigin = 'here' | 'fleet';

export interface PurgeMetrics {
  purged(kind: PurgeKind, mode: PurgeMode, origin: PurgeOrigin, entries: number): void;
}

const KINDS: readonly PurgeKind[] = ['key', 'tag', 'all'];
const MODES: readonly PurgeMode[] = ['hard', 'soft'];

export function registerPurgeMetrics(registry: Registry, marks: () => number): PurgeMetrics {
  const pairs = KINDS.flatMap((kind) => MODES.map((mode) => ({ kind, mode })));
  const origins = ['here', 'fleet'] as const;
  const purges = counter(registry, 'purges_total', {
    start: pairs.flatMap((p) => origins.map((origin) => ({ ...p, origin }))),
  });
  const entries = counter(registry, 'purged_entries_total', { start: pairs });
  gauge(registry, 'purge_marks', (g) => g.set(marks()));
  return {
    purged(kind, mode, origin, n) {
      purges.inc({ kind, mode, origin });
      entries.inc({ kind, mode }, n);
    },
  };
}
