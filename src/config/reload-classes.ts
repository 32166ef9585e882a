/**
 * What SIGHUP does with each setting (src/startup/reload.ts): a `live` one is
 * applied in place, through the swap point of the subsystem that reads it
 * (src/startup/live-settings.ts), keeping the cache, the streams and the
 * connections; a `restart` one keeps its running value until the next start,
 * and a reload that finds it changed names it in a warning. Every setting of
 * fields.ts and every CONFIG_FILE-only section is in exactly one list here
 * (a unit test checks it), so a new setting is classified where it is added.
 */

import type { Config } from './types.js';

/** Applied by a reload. */
export const LIVE: readonly string[] = [
  // Each changed URL becomes a fresh upstream under its name (src/upstream/pool.ts replaceUrls).
  'UPSTREAM_URLS',
  // Read by the upstream pool at each request.
  'UPSTREAM_MAX_ATTEMPTS',
  'UPSTREAM_HEDGE_AFTER_MS',
  'UPSTREAM_HEDGE_QUANTILE',
  'UPSTREAM_MAX_LAG_BLOCKS',
  'LOG_LEVEL',
  'ADMIN_ALLOW',
  // Read on every request by the operator gates (OperatorAccess.set).
  'PURGE_ALLOW',
  'ADMIN_HOSTS',
  'SHUTDOWN_TIMEOUT_MS',
  'DRAIN_DELAY_MS',
  // Read by the rate limiter on every request (only when it runs: RATE_LIMIT_ENABLED is restart-only).
  'RATE_LIMIT_MAX',
  'RATE_LIMIT_WINDOW_MS',
  'RATE_LIMIT_MISS_BUDGET',
  'RATE_LIMIT_ALLOW',
  'CREDITS_HIT_COST',
  'CREDITS_MISS_COST',
  'apiKeys',
  'creditCosts',
  // Catalogue.setPolicies, then the readiness rule and the purge horizon recomputed (src/stages.ts).
  'policies',
  // PageTableSwap.apply (src/pages/table-swap.ts): the one /pages/* route looks each page up in the new table.
  'pages',
  // PassCache.reconfigure (src/passthrough/build.ts): the table of prefixes the one passthrough dispatcher reads
  // per request (added, removed, re-pointed to another backend or target path), each one's policy and parameters.
  'PASSTHROUGH',
  'PASSTHROUGH_CACHE',
  'PASSTHROUGH_IGNORE_PARAMS',
  // Given with each backend request, and the cached way's bound read at each fetch.
  'PASSTHROUGH_TIMEOUT_MS',
  'PASSTHROUGH_CACHE_MAX_BODY_BYTES',
];

/** Kept until the next start: bound sockets, processes, built tables, connections, or read once at start. */
export const RESTART: readonly string[] = [
  'PORT',
  'HOST',
  'WORKERS',
  'WORKERS_LEND_WAIT_MS',
  'REDIS_URL',
  'PUBLIC_BASE_URL',
  'CACHE_MAX_BYTES',
  'ACCESS_LOG',
  'TRUST_PROXY',
  'METRICS_CACHE_MS',
  'MAX_PAGE_SIZE',
  'MAX_DAYS',
  'MAX_BATCH_ITEMS',
  'REQUEST_TIMEOUT_MS',
  'MAX_CONNECTIONS',
  'MAX_CONNECTIONS_PER_CLIENT',
  'HEADERS_TIMEOUT_MS',
  'KEEP_ALIVE_TIMEOUT_MS',
  // The upstream pool's settings, its probes, breakers and per-upstream metrics are built once.
  'UPSTREAM_CONNECT_TIMEOUT_MS',
  'UPSTREAM_TIMEOUT_MS',
  'UPSTREAM_DEADLINE_MS',
  'UPSTREAM_PROBE_INTERVAL_MS',
  'UPSTREAM_PROBE_DENSE_MS',
  'UPSTREAM_BREAKER_FAILURES',
  'UPSTREAM_BREAKER_COOLDOWN_MS',
  'UPSTREAM_CONNECTIONS',
  'UPSTREAM_MAX_BODY_BYTES',
  'UPSTREAM_MAX_QUEUE',
  'UPSTREAM_HEAD_MARGIN_BLOCKS',
  'UPSTREAM_QUORUM',
  'UPSTREAM_SIT_OUT_MS',
  'UPSTREAM_DISPUTE_STRIKES',
  'UPSTREAM_DISPUTE_WINDOW_MS',
  'REDIS_COMMAND_TIMEOUT_MS',
  'REDIS_KEY_PREFIX',
  'REDIS_COMPRESS_ABOVE_BYTES',
  'REDIS_LEASE_MS',
  'REDIS_BREAKER_FAILURES',
  'REDIS_BREAKER_COOLDOWN_MS',
  'REDIS_HEARTBEAT_MS',
  'RATE_LIMIT_ENABLED',
  'RATE_LIMIT_MAX_CLIENTS',
  'SIM_BLOCK_INTERVAL_MS',
  'SIM_SEED',
  'MAX_STREAMS',
  'STREAM_MAX_PER_CLIENT',
  'STREAM_HISTORY_MAX_AGE_MS',
  'STREAM_HEARTBEAT_MS',
  'STREAM_RETRY_MS',
  'STREAM_HISTORY',
  'STREAM_MAX_BUFFER_BYTES',
  'STREAM_MAX_BUFFER_TOTAL_BYTES',
  'STREAM_ACTIVITY_MAX_WATCH',
  'STREAM_ACTIVITY_HISTORY_BYTES',
  'STREAM_ACTIVITY_LINGER_MS',
  'STREAM_ACTIVITY_WATCH_BYTES',
  'REFRESH_AHEAD_MAX_KEYS',
  'INVALIDATION_MODE',
  'INVALIDATION_MAX_AGE_MS',
  'INVALIDATION_LIST_MAX_AGE_MS',
  'INVALIDATION_MAX_AGE_GROWTH',
  'INVALIDATION_READ_TIMEOUT_MS',
  'INVALIDATION_PENDING_POLL_MS',
  'CACHE_TAG_HEADERS',
  // Precise invalidation's rule keeps the configuration it was built with (src/invalidation/rule.ts).
  'invalidation.maxAgeByEndpoint',
];

/** Live settings applied only under a condition (else the change waits for a restart), said in words for the docs. */
export const LIVE_IF: Readonly<Record<string, { when: string; holds: (running: Config, next: Config) => boolean }>> = {
  UPSTREAM_URLS: {
    // Upstream names (u0, u1, ...) are metric labels: the set is fixed at start; none: the simulator runs.
    when: 'as many URLs as at start, and at least one',
    holds: (a, b) => a.upstreamUrls.length === b.upstreamUrls.length && a.upstreamUrls.length > 0,
  },
};

const LIVE_SET: ReadonlySet<string> = new Set(LIVE);

/**
 * Whether a change of a setting (its variable name, or a CONFIG_FILE-only
 * section's key) from `running` to `next` is applied by a reload.
 */
export const reloadsLive = (name: string, running: Config, next: Config): boolean =>
  LIVE_SET.has(name) && (LIVE_IF[name]?.holds(running, next) ?? true);
