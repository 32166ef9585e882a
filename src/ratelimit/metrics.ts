/**
 * Rate-limit metrics on the shared registry. Label values are bounded: 'ip'
 * plus the configured API key names (never the keys themselves).
 *
 *   chainproxy_rate_limit_refused_total{client}   429s by client kind ('ip' or key name)
 *   chainproxy_api_key_requests_total{key}        requests admitted per API key
 *   chainproxy_api_key_unknown_total              401s for an X-API-Key not configured
 *   chainproxy_rate_limit_buckets                 client buckets held in memory
 */
import type { Registry } from 'prom-client';
import { CallbackGauge, DenseCounter } from '../metrics/collectors.js';
import { METRIC_PREFIX } from '../metrics/prometheus.js';

export interface RateLimitMetrics {
  /** A 429 for this client key. */
  refused(clientKey: string): void;
  /** An admitted request of an API-key client (no-op for IP clients). */
  admitted(clientKey: string): void;
  unknownKey(): void;
}

export function createRateLimitMetrics(registry: Registry, keyNames: readonly string[], buckets: () => number): RateLimitMetrics {
  const p = METRIC_PREFIX;
  const clients = ['ip', ...keyNames];
  const index = new Map<string, number>(keyNames.map((n, i) => [`key:${n}`, i]));
  const refused = new DenseCounter(`${p}rate_limit_refused_total`, 'Requests refused with 429 by the rate limiter, by client (ip, or the API key name).', clients.map((c) => ({ client: c }))).register(registry);
  const perKey = new DenseCounter(`${p}api_key_requests_total`, 'Requests admitted per API key (by name).', keyNames.map((k) => ({ key: k }))).register(registry);
  const unknown = new DenseCounter(`${p}api_key_unknown_total`, 'Requests refused with 401 for an X-API-Key that is not configured.', [{}]).register(registry);
  new CallbackGauge(`${p}rate_limit_buckets`, 'Client rate-limit buckets held in memory (bounded).', () => [{ labels: {}, value: buckets() }]).register(registry);
  return {
    refused(clientKey) {
      const i = index.get(clientKey);
      refused.inc(i === undefined ? 0 : i + 1);
    },
    admitted(clientKey) {
      if (clientKey.charCodeAt(0) !== 107 /* 'k' */) return;
      const i = index.get(clientKey);
      if (i !== undefined) perKey.inc(i);
    },
    unknownKey() {
      unknown.inc(0);
    },
  };
}
