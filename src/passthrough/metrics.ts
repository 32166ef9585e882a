/**
 * Passthrough metrics on the shared registry. The `route` label is a
 * configured prefix (those configured at start and those a reload added:
 * a set bounded by the configuration), never a request path.
 */
import type { Registry } from 'prom-client';
import { counter, histogram } from '../metrics/declare.js';
import { statusClass } from '../metrics/status-class.js';
import type { CountAnswer } from '../metrics/types.js';

export type PassthroughFailure = 'timeout' | 'unavailable' | 'bad_response';

export interface PassthroughMetrics {
  /** One answered request (relayed or turned into an envelope); counted by the epilogue. */
  request: CountAnswer;
  /** A backend failure answered with a 502/504 envelope. */
  failure(route: string, reason: PassthroughFailure): void;
  /** A body over the cache bound, streamed uncached. */
  tooBig(route: string): void;
  /** Per route: answers by X-Cache (for the status page). */
  counts(): Record<string, Record<string, number>>;
  /** A prefix a reload added: counted under its own label from now on. */
  adopt(route: string): void;
}

export function createPassthroughMetrics(registry: Registry, routes: readonly string[]): PassthroughMetrics {
  const known = new Set(routes);
  const label = (route: string): string => (known.has(route) ? route : 'other');
  const requests = counter(registry, 'passthrough_requests_total');
  const duration = histogram(registry, 'passthrough_request_duration_seconds');
  const failures = counter(registry, 'passthrough_failures_total');
  const results = counter(registry, 'passthrough_cache_total');
  const big = counter(registry, 'passthrough_too_big_total');
  const seen: Record<string, Record<string, number>> = {};
  for (const r of routes) seen[r] = {};
  return {
    adopt(route) {
      known.add(route);
      seen[route] ??= {};
    },
    tooBig(route) {
      const r = label(route);
      big.inc({ route: r });
      const row = (seen[r] ??= {});
      row['TOO_BIG'] = (row['TOO_BIG'] ?? 0) + 1;
    },
    counts: () => seen,
    request(route, status, cache, seconds) {
      const r = label(route);
      results.inc({ route: r, result: cache });
      const row = (seen[r] ??= {});
      row[cache] = (row[cache] ?? 0) + 1;
      requests.inc({ route: r, status_class: statusClass(status) });
      if (Number.isFinite(seconds) && seconds >= 0) duration.observe({ route: r }, seconds);
    },
    failure(route, reason) {
      failures.inc({ route: label(route), reason });
    },
  };
}
