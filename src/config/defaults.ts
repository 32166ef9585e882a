/** Typed defaults of every setting (no validation here; see validate.ts). */
import type { Config } from './types.js';

const MIB = 1024 * 1024;
/** Unset SHUTDOWN_TIMEOUT_MS = REQUEST_TIMEOUT_MS + this, so a request accepted before the signal ends on its own. */
export const SHUTDOWN_MARGIN_MS = 1000;

/**
 * Unset RATE_LIMIT_MISS_BUDGET: this share of RATE_LIMIT_MAX (rounded
 * up), so lowering the request limit lowers upstream work too.
 */
export const missBudgetFor = (rateLimitMax: number): number => Math.ceil(rateLimitMax / 5);

/** A fresh default Config (callers may mutate it). */
export function defaultConfig(): Config {
  const rateLimit = { enabled: true, max: 600, windowMs: 60_000, maxClients: 100_000 };
  return {
    port: 8080,
    host: '0.0.0.0',
    upstreamUrls: [],
    publicBaseUrl: 'http://localhost:8080',
    cacheMaxBytes: 256 * MIB,
    logLevel: 'info',
    accessLog: 'misses',
    redisUrl: null,
    trustProxy: [],
    adminAllow: ['loopback', 'uniquelocal'],
    purgeAllow: ['loopback'],
    adminHosts: [],
    metricsCacheMs: 1000,
    limits: { maxPageSize: 100, maxDays: 365, requestTimeoutMs: 15_000, maxBatchItems: 20 },
    workers: 1,
    workersLendWaitMs: 50,
    shutdownTimeoutMs: 15_000 + SHUTDOWN_MARGIN_MS,
    // 0: nothing reads readiness in front of a lone process or a systemd unit, and a delay there only slows a stop.
    drainDelayMs: 0,
    http: { maxConnections: 8192, maxConnectionsPerClient: 256, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 72_000 },
    upstream: {
      connectTimeoutMs: 1000,
      attemptTimeoutMs: 5000,
      totalDeadlineMs: 10_000,
      maxAttempts: 3,
      hedgeAfterMs: 100,
      hedgeQuantile: 0.95,
      probeIntervalMs: 1000,
      probeDenseMs: 100,
      maxLagBlocks: 3,
      breakerFailures: 5,
      breakerCooldownMs: 5000,
      connections: 32,
      maxBodyBytes: 8 * MIB,
      maxQueue: 256,
      headMarginBlocks: 10,
      quorum: 1,
      sitOutMs: 60_000,
      disputeStrikes: 3,
      disputeWindowMs: 600_000,
    },
    redis: {
      commandTimeoutMs: 100,
      keyPrefix: 'chainproxy:',
      compressAboveBytes: 1024,
      leaseMs: 3000,
      breakerFailures: 5,
      breakerCooldownMs: 2000,
      heartbeatMs: 5000,
    },
    rateLimit,
    passthrough: { routes: [], timeoutMs: 10_000, cache: {}, ignoreParams: [], cacheMaxBodyBytes: 1024 * 1024 },
    rateLimitAllow: [],
    apiKeys: [],
    missBudget: missBudgetFor(rateLimit.max),
    credits: { hitCost: 1, missCost: 5 },
    creditCosts: {},
    simulator: { blockIntervalMs: 15_000, seed: 1 },
    stream: {
      maxStreams: 10_000,
      maxPerClient: 8,
      heartbeatMs: 15_000,
      retryMs: 3000,
      history: 1024,
      historyMaxAgeMs: 60 * 60_000,
      maxBufferBytes: 256 * 1024,
      maxBufferTotalBytes: 64 * MIB,
      activityMaxWatch: 100,
      activityHistoryBytes: 16 * MIB,
      activityLingerMs: 5 * 60_000,
      activityWatchBytes: 16 * MIB,
    },
    refreshAhead: { maxKeys: 12 },
    invalidation: {
      mode: 'precise',
      maxAgeMs: 60_000,
      listMaxAgeMs: 600_000,
      maxAgeGrowth: 16,
      maxAgeByEndpoint: {},
      readTimeoutMs: 2000,
      pendingPollMs: 1000,
    },
    cacheTagHeaders: false,
    policies: {},
    pages: {},
  };
}
