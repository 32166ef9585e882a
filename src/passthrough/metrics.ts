/**
 * Passthrough metrics on the shared registry. The `route` label is a
 * configured prefix (a bounded set known at start), never a request path.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX, UPSTREAM_BUCKETS } from '../metrics/prometheus.js';
import { statusClass } from '../metrics/status-class.js';
import type { CountAnswer } from '../metrics/types.js';

export type PassthroughFailure = 'timeout' | 'unavailable' | 'bad_response';

export interface PassthroughMetrics {
  /** One answered request (relayed or turned into an envelope); counted by the epilogue. */
  request: CountAnswer;
  /** A backend failure answered with a 502/504 envelope. */
  failure(route: string, reason: PassthroughFailure): void;
}

export function createPassthroughMetrics(registry: Registry, routes: readonly string[]): PassthroughMetrics {
  const known = new Set(routes);
  const label = (route: string): string => (known.has(route) ? route : 'other');
  const requests = new Counter({
    name: `${METRIC_PREFIX}passthrough_requests_total`,
    help: 'Requests on passthrough routes, by route prefix and HTTP status class.',
    labelNames: ['route', 'status_class'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: `${METRIC_PREFIX}passthrough_request_duration_seconds`,
    help: 'Time from receiving a passthrough request to the end of its answer, by route prefix.',
    labelNames: ['route'] as const,
    buckets: UPSTREAM_BUCKETS,
    registers: [registry],
  });
  const failures = new Counter({
    name: `${METRIC_PREFIX}passthrough_failures_total`,
    help: 'Passthrough backend failures answered with an envelope, by route prefix and reason.',
    labelNames: ['route', 'reason'] as const,
    registers: [registry],
  });
  return {
    request(route, status, _cache, seconds) {
      const r = label(route);
      requests.inc({ route: r, status_class: statusClass(status) });
      if (Number.isFinite(seconds) && seconds >= 0) duration.observe({ route: r }, seconds);
    },
    failure(route, reason) {
      failures.inc({ route: label(route), reason });
    },
  };
}
