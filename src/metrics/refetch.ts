/**
 * Refetches of unchanged content, per endpoint, on the shared registry:
 *
 *   chainproxy_refetches_total{endpoint}            a fetched answer replaced an entry held in memory
 *   chainproxy_refetches_unchanged_total{endpoint}  ... with the same status and the same content
 *                                                   without its volatile stamps (equal ETags)
 *
 * unchanged / refetches is the upstream work spent on nothing; the per-block
 * invalidation aims to keep it near zero.
 */
import type { Registry } from 'prom-client';
import { sameContent } from '../cache/entry.js';
import type { CacheEntry } from '../cache/types.js';
import { denseCounter } from './declare.js';
import { ENDPOINT_LABELS } from './prometheus.js';

export interface RefetchMetrics {
  /** A fetched entry of `endpoint` about to replace `before` (undefined: nothing held). */
  refetched(endpoint: string, before: CacheEntry | undefined, after: CacheEntry): void;
  /** Totals for /status. */
  totals(): { refetches: number; unchanged: number };
}

export function registerRefetchMetrics(registry: Registry): RefetchMetrics {
  const series = ENDPOINT_LABELS.map((endpoint) => ({ endpoint }));
  const index = new Map(ENDPOINT_LABELS.map((e, i) => [e, i]));
  const other = ENDPOINT_LABELS.length - 1;
  const refetches = denseCounter(registry, 'refetches_total', series);
  const unchanged = denseCounter(registry, 'refetches_unchanged_total', series);
  let total = 0;
  let same = 0;
  return {
    refetched(endpoint, before, after) {
      if (before === undefined) return;
      const i = index.get(endpoint) ?? other;
      refetches.inc(i);
      total++;
      if (!sameContent(before, after)) return;
      unchanged.inc(i);
      same++;
    },
    totals: () => ({ refetches: total, unchanged: same }),
  };
}
