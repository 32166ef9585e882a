import type { EndpointName } from '../catalogue/types.js';
import type { EndpointPolicy } from '../endpoints/types.js';
import type { PageTable } from '../page-table/types.js';

type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
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
  /** Probe interval around the expected next block; 0: fixed probeIntervalMs (default 100). */
  probeDenseMs?: number;
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
  /** Requests waiting for a connection to one upstream; past it a fast 503 (default 256). */
  maxQueue?: number;
  /**
   * A head further ahead of the trusted one than this (plus the
   * observed block rate) needs a second source (default 10).
   */
  headMarginBlocks?: number;
  /** Distinct upstreams agreeing before an answer is kept final (default 1: no vote). */
  quorum?: number;
  /** Bench time of a misbehaving upstream (default 60 s). */
  sitOutMs?: number;
  /** Lost disputes within disputeWindowMs that bench an upstream (default 3). */
  disputeStrikes?: number;
  disputeWindowMs?: number;
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
  /** How often a replica writes its fleet membership (src/fleet/members.ts). */
  heartbeatMs: number;
}

export interface RateLimitConfig {
  enabled: boolean;
  /** Requests per window per client IP (hits and misses). */
  max: number;
  windowMs: number;
  /** Clients whose request and miss buckets are held (per table); the oldest idle ones go first. */
  maxClients: number;
}

/** Credit prices of X-API-Key requests. */
export interface CreditsConfig {
  /** Per request, hit or miss. */
  hitCost: number;
  /** On top, per upstream request led. */
  missCost: number;
}

/** Per-endpoint (`tx/list`) or per-page (`pages/home`) prices, over CreditsConfig. */
export type CreditCosts = Readonly<Record<string, { hit?: number; miss?: number }>>;

/** A legacy path prefix forwarded as it is to a backend (PASSTHROUGH). */
export interface PassthroughRoute {
  /** `/api`: this path and everything under it. */
  prefix: string;
  /** Base URL; without a path the request path is kept, with one it replaces the prefix. */
  target: string;
}

/** How long a passthrough prefix's answers are kept (PASSTHROUGH_CACHE). */
export type PassCachePolicy = { kind: 'off' } | { kind: 'head' } | { kind: 'ttl'; ms: number };

export interface PassthroughConfig {
  routes: PassthroughRoute[];
  /** Time to the response headers, and the longest silence while streaming the body. */
  timeoutMs: number;
  /** Policy per prefix; a prefix absent follows the backend's Cache-Control (RFC 9111). */
  cache: Readonly<Record<string, PassCachePolicy>>;
  /** Query parameters dropped from cache keys and forwarded requests (cache-busters). */
  ignoreParams: readonly string[];
  /** Largest body stored; a larger one is streamed uncached. */
  cacheMaxBodyBytes: number;
}

export interface StreamConfig {
  /** Concurrent subscribers (0: the stream is off). */
  maxStreams: number;
  /** Concurrent subscribers per client IP. */
  maxPerClient: number;
  heartbeatMs: number;
  /** Reconnection delay suggested to clients. */
  retryMs: number;
  /** Events kept for Last-Event-ID resumes (with Redis also the length of the fleet's shared history). */
  history: number;
  /** Age past which events leave the fleet's shared history (with Redis). */
  historyMaxAgeMs: number;
  /** Unsent bytes past which a subscriber is disconnected. */
  maxBufferBytes: number;
  /** Queued bytes of all subscribers together past which the one that does not fit is disconnected. */
  maxBufferTotalBytes: number;
  /** Addresses and contracts one /stream/activity connection may watch. */
  activityMaxWatch: number;
  /** Memory of the activity history kept for Last-Event-ID resumes. */
  activityHistoryBytes: number;
  /** How long an entity stays watched after its last connection closed (so a resume finds its events). */
  activityLingerMs: number;
  /** Memory charged to every watched entity at once, open or lingering. */
  activityWatchBytes: number;
}

/** One API key of CONFIG_FILE `apiKeys:` (exactly one of key, sha256). */
export interface ApiKeyConfig {
  /** Shown in logs and metrics instead of the key. */
  name: string;
  /** The secret in clear. */
  key?: string;
  /** Or its SHA-256, lowercase hex. */
  sha256?: string;
  /** Credits per window charged to this key (not per IP); a hit costs credits.hitCost. */
  max: number;
  /** Default: rateLimit.windowMs. */
  windowMs?: number;
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
  /** Clients allowed to POST /purge (PURGE_ALLOW). */
  purgeAllow: string[];
  /** Host names operator routes answer under, besides IP literals and localhost (ADMIN_HOSTS). */
  adminHosts: string[];
  /** /metrics renders at most once per this many ms (0: every scrape). */
  metricsCacheMs: number;
  limits: {
    maxPageSize: number;
    maxDays: number;
    /** Whole client request, upstream phase included. */
    requestTimeoutMs: number;
    /** Most items in one POST /batch. */
    maxBatchItems: number;
  };
  /** Server processes on one port (`auto` resolved to the core count). */
  workers: number;
  /** How long a worker's miss waits for another worker to lend its entry before asking the upstream. */
  workersLendWaitMs: number;
  /** Drain deadline after SIGTERM/SIGINT; derived from limits.requestTimeoutMs unless set. */
  shutdownTimeoutMs: number;
  /** After SIGTERM, /readyz answers 503 this long while everything is still served (0: none). */
  drainDelayMs: number;
  /** Limits of the client-facing HTTP server. */
  http: {
    /** Client connections at once (0: no cap). */
    maxConnections: number;
    /** Connections one client socket address holds at once (0: no limit). */
    maxConnectionsPerClient: number;
    /** Time to receive a request's headers. */
    headersTimeoutMs: number;
    /** Idle keep-alive client connections are closed after this. */
    keepAliveTimeoutMs: number;
  };
  upstream: UpstreamConfig;
  redis: RedisConfig;
  rateLimit: RateLimitConfig;
  passthrough: PassthroughConfig;
  /** IPs/CIDRs never rate limited. */
  rateLimitAllow: string[];
  /** API keys with their own budgets (CONFIG_FILE only). */
  apiKeys: ApiKeyConfig[];
  /** Upstream requests an IP client may lead per rate-limit window (0: no miss budget). */
  missBudget: number;
  /** Credit prices of API-key requests. */
  credits: CreditsConfig;
  /** Per-endpoint and per-page credit prices (CONFIG_FILE only). */
  creditCosts: CreditCosts;
  /** Built-in simulator settings (used only when upstreamUrls is empty). */
  simulator: { blockIntervalMs: number; seed: number };
  /** The /stream/heads server-sent event stream. */
  stream: StreamConfig;
  /** Refresh of hot head-dependent entries on every new head. */
  refreshAhead: { maxKeys: number };
  /** Precise (tag) or head-rule invalidation (src/invalidation/). */
  invalidation: InvalidationConfig;
  /** Cache-Tag and Surrogate-Key response headers. */
  cacheTagHeaders: boolean;
  /** Per-endpoint policy overrides merged over the catalogue defaults. */
  policies: Partial<Record<EndpointName, Partial<EndpointPolicy>>>;
  /** Pages added to (or replacing) the built-in page table (src/page-table/defaults.ts). */
  pages: PageTable;
}

type InvalidationMode = 'precise' | 'head';

export interface InvalidationConfig {
  mode: InvalidationMode;
  /** Longest freshness of a tag-kept entry (ms). */
  maxAgeMs: number;
  /** The same for endpoints whose every change a block or the pool names (transaction lists). */
  listMaxAgeMs: number;
  /** Largest multiple of its endpoint's bound a key's bound may earn (1: fixed). */
  maxAgeGrowth: number;
  /** Per-endpoint override of maxAgeMs (CONFIG_FILE only). */
  maxAgeByEndpoint: Partial<Record<string, number>>;
  readTimeoutMs: number;
  /** 0: the pending pool is not polled. */
  pendingPollMs: number;
}
