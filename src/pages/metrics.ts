/**
 * Page metrics on the shared registry. Label values: the configured page
 * names (bounded by the page table), cache results, status classes.
 */
import type { Counter, Registry } from 'prom-client';
import { counter, histogram } from '../metrics/declare.js';
import { statusClass } from '../metrics/status-class.js';
import type { PartSummary } from '../cache/types.js';
import type { CountAnswer } from '../metrics/types.js';

export interface PageMetrics {
  /** One answered page request (its duration is not kept). */
  request: CountAnswer;
  /** One composition: its parts by cache result, and how long it took. */
  composed(page: string, parts: readonly PartSummary[], seconds: number): void;
  /** Pages added by a reload get their own label value; a removed page's series stay (they stop growing). */
  declare(pages: readonly string[]): void;
}

export function registerPageMetrics(registry: Registry, pages: readonly string[]): PageMetrics {
  const known = new Set(pages);
  const label = (page: string): string => (known.has(page) ? page : 'other');
  const requests = counter(registry, 'page_requests_total');
  const parts = counter(registry, 'page_parts_total');
  const duration = histogram(registry, 'page_composition_seconds');
  // Hot path: one child per (page, cache, class), made once.
  const children = new Map<string, Counter.Internal>();
  return {
    declare(names) {
      for (const name of names) {
        if (known.has(name)) continue;
        known.add(name);
        // Counted as `other` until now.
        for (const k of children.keys()) if (k.startsWith(`${name}\0`)) children.delete(k);
      }
    },
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
