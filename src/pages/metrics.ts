/**
 * Page metrics on the shared registry. Label values: the configured page
 * names (bounded by the page table), cache results, status classes.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../metrics/prometheus.js';
import { statusClass } from '../metrics/status-class.js';
import type { PartSummary } from '../cache/types.js';
import type { CountAnswer } from '../metrics/types.js';

export interface PageMetrics {
  /** One answered page request (its duration is not kept). */
  request: CountAnswer;
  /** One composition: its parts by cache result, and how long it took. */
  composed(page: string, parts: readonly PartSummary[], seconds: number): void;
}

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function registerPageMetrics(registry: Registry, pages: readonly string[]): PageMetrics {
  const known = new Set(pages);
  const label = (page: string): string => (known.has(page) ? page : 'other');
  const requests = new Counter({
    name: `${METRIC_PREFIX}page_requests_total`,
    help:
      'Page requests answered, by page, cache result of the composed ' +
      'page (HIT, MISS, STALE, BYPASS, ERROR) and status class.',
    labelNames: ['page', 'cache', 'status_class'] as const,
    registers: [registry],
  });
  const parts = new Counter({
    name: `${METRIC_PREFIX}page_parts_total`,
    help: 'Parts resolved by page compositions, by page and cache result (HIT, MISS, STALE, BYPASS, ERROR, SKIPPED).',
    labelNames: ['page', 'cache'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: `${METRIC_PREFIX}page_composition_seconds`,
    help: 'Time to compose a page from its parts (cache lookups and upstream requests included).',
    labelNames: ['page'] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  // Hot path: one child per (page, cache, class), made once.
  const children = new Map<string, Counter.Internal>();
  return {
    request(page, status, cache) {
      const k = `${page}\0${cache}\0${status}`;
      let c = children.get(k);
      if (c === undefined) {
        c = requests.labels({ page: label(page), cache, status_class: statusClass(status) });
        children.set(k, c);
      }
      c.inc();
    },
    composed(page, summaries, seconds) {
      const p = label(page);
      for (const s of summaries) parts.inc({ page: p, cache: s.cache });
      duration.observe({ page: p }, seconds);
    },
  };
}
