import type { EndpointName, EndpointPolicy } from '../catalogue/types.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type AccessLog = 'all' | 'misses' | 'off';

export interface UpstreamConfig {
  /** Connect timeout of one attempt. */
  connectTimeoutMs: number;
  /** Time to the full response of one attempt. */
  attemptTimeoutMs: number;
  /** Whole upstream phase of one request, all retries and hedges included. */
  totalDeadlineMs: number;
  /** Attempts per request, on distinct upstreams where possible. */
  maxAttempts: number;
  /** Race a second upstream when an attempt is slower than this; 0 disables hedging. */
  hedgeAfterMs: number;
  /** When > 0: hedge after this latency quantile (0..1) of the upstream instead, floored by hedgeAfterMs. */
  hedgeQuantile: number;
  probeIntervalMs: number;
  /** An upstream further behind the best head is not used for head-sensitive endpoints. */
  maxLagBlocks: number;
  /** Consecutive failures that open an upstream's breaker. */
  breakerFailures: number;
  /** Open time before the half-open probe. */
  breakerCooldownMs: number;
  /** Keep-alive connections per upstream. */
  connections: number;
  /** Largest upstream body accepted. */
  maxBodyBytes: number;
}

export interface RedisConfig {
  /** Per-command timeout; past it the tier counts a failure and the request goes on. */
  commandTimeoutMs: number;
  keyPrefix: string;
  /** Bodies above this many bytes are stored gzip-compressed. */
  compressAboveBytes: number;
  /** Fleet-wide single-flight lease. */
  leaseMs: number;
  /** Consecutive failures that open the tier's breaker, and its cooldown. */
  breakerFailures: number;
  breakerCooldownMs: number;
}

export interface RateLimitConfig {
  enabled: boolean;
  /** Requests per window per client IP (hits and misses). */
  max: number;
  windowMs: number;
}

export interface Config {
  port: number;
  host: string;
  /** Empty: the built-in simulator is started in-process. */
  upstreamUrls: string[];
  /** Links (next/previous) are built from this, never from request headers. */
  publicBaseUrl: string;
  cacheMaxBytes: number;
  logLevel: LogLevel;
  accessLog: AccessLog;
  redisUrl: string | null;
  /** CIDRs (or IPs) of proxies whose X-Forwarded-For hop is believed. */
  trustProxy: string[];
  /** Client addresses (IPs, CIDRs, names) allowed on operator routes. */
  adminAllow: string[];
  /** /metrics renders at most once per this many ms (0: every scrape). */
  metricsCacheMs: number;
  limits: {
    maxPageSize: number;
    maxDays: number;
    /** Whole client request, upstream phase included. */
    requestTimeoutMs: number;
  };
  /** Limits of the client-facing HTTP server. */
  http: {
    /** Client connections at once (0: no cap). */
    maxConnections: number;
    /** Time to receive a request's headers. */
    headersTimeoutMs: number;
    /** Idle keep-alive client connections are closed after this. */
    keepAliveTimeoutMs: number;
  };
  upstream: UpstreamConfig;
  redis: RedisConfig;
  rateLimit: RateLimitConfig;
  /** Built-in simulator settings (used only when upstreamUrls is empty). */
  simulator: { blockIntervalMs: number; seed: number };
  /** Per-endpoint policy overrides merged over the catalogue defaults. */
  policies: Partial<Record<EndpointName, Partial<EndpointPolicy>>>;
}
