/**
 * Rate-limit and miss-budget metrics on the shared registry. Label values are
 * bounded: 'ip' / 'anonymous' plus the configured API key names (never the
 * keys themselves).
 *
 *   chainproxy_rate_limit_refused_total{client}   429s by client kind ('ip' or key name)
 *   chainproxy_api_key_requests_total{key}        requests admitted per API key
 *   chainproxy_api_key_credits_total{key}         credits charged per API key (hits and misses)
 *   chainproxy_api_key_unknown_total              401s for an X-API-Key not configured
 *   chainproxy_rate_limit_buckets                 client buckets held in memory
 *   chainproxy_miss_budget_charged_total{client}  upstream requests led and charged ('anonymous' or key name)
 *   chainproxy_miss_budget_refused_total{client}  requests that would have led one, refused (429, code 4292)
 *   chainproxy_miss_budget_buckets                miss-budget buckets held in memory
 */
import type { Registry } from 'prom-client';
import { callbackGauge, denseCounter } from '../metrics/declare.js';

export interface RateLimitMetrics {
  /** A 429 for this client key. */
  refused(clientKey: string): void;
  /** An admitted request of an API-key client, charged `credits` (no-op for IP clients). */
  admitted(clientKey: string, credits: number): void;
  unknownKey(): void;
  /** Credits charged to an API key for a miss (no request counted). */
  credits(clientKey: string, credits: number): void;
  /** A led upstream request charged to this client key (a charge given back later is not subtracted). */
  missCharged(clientKey: string): void;
  /** A request refused because it would lead an upstream request beyond the budget. */
  missRefused(clientKey: string): void;
}

export interface BucketCounts {
  buckets: () => number;
  missBuckets: () => number;
}

export function createRateLimitMetrics(
  registry: Registry,
  keyNames: readonly string[],
  sizes: BucketCounts,
): RateLimitMetrics {
  const clients = ['ip', ...keyNames];
  const classes = ['anonymous', ...keyNames];
  const index = new Map<string, number>(keyNames.map((n, i) => [`key:${n}`, i]));
  /** 0 for an IP client, 1 + the key's index for an API key. */
  const slot = (clientKey: string): number => {
    const i = clientKey.charCodeAt(0) === 107 /* 'k' */ ? index.get(clientKey) : undefined;
    return i === undefined ? 0 : i + 1;
  };
  const refused = denseCounter(
    registry,
    'rate_limit_refused_total',
    clients.map((c) => ({ client: c })),
  );
  const perKey = denseCounter(
    registry,
    'api_key_requests_total',
    keyNames.map((k) => ({ key: k })),
  );
  const credits = denseCounter(
    registry,
    'api_key_credits_total',
    keyNames.map((k) => ({ key: k })),
  );
  const unknown = denseCounter(registry, 'api_key_unknown_total', [{}]);
  const charged = denseCounter(
    registry,
    'miss_budget_charged_total',
    classes.map((c) => ({ client: c })),
  );
  const missRefused = denseCounter(
    registry,
    'miss_budget_refused_total',
    classes.map((c) => ({ client: c })),
  );
  callbackGauge(registry, 'rate_limit_buckets', () => [{ labels: {}, value: sizes.buckets() }]);
  callbackGauge(registry, 'miss_budget_buckets', () => [{ labels: {}, value: sizes.missBuckets() }]);
  return {
    refused(clientKey) {
      refused.inc(slot(clientKey));
    },
    admitted(clientKey, n) {
      if (clientKey.charCodeAt(0) !== 107 /* 'k' */) return;
      const i = index.get(clientKey);
      if (i === undefined) return;
      perKey.inc(i);
      credits.inc(i, n);
    },
    unknownKey() {
      unknown.inc(0);
    },
    credits(clientKey, n) {
      const s = slot(clientKey);
      if (s > 0) credits.inc(s - 1, n);
    },
    missCharged(clientKey) {
      charged.inc(slot(clientKey));
    },
    missRefused(clientKey) {
      missRefused.inc(slot(clientKey));
    },
  };
}
