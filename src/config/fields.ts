/**
 * The one table of settings: environment variable, CONFIG_FILE key (a path in
 * Config), value kind and bounds, meaning. load.ts, validate.ts, help.ts and
 * README.md are all driven by it.
 */

export type FieldKind =
  | { type: 'int'; min: number; max: number }
  /** An integer from 1 to max, or `auto`: one per core of this machine. */
  | { type: 'perCore'; max: number }
  | { type: 'number'; min: number; max: number }
  | { type: 'bytes'; min: number; max: number }
  | { type: 'bool' }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'host' }
  | { type: 'prefix' }
  | { type: 'url' }
  | { type: 'urls' }
  | { type: 'redisUrl' }
  | { type: 'addresses' }
  /** Comma-separated DNS host names. */
  | { type: 'hostnames' }
  | { type: 'routes' }
  | { type: 'passCache' }
  | { type: 'paramNames' };

export interface Field {
  env: string;
  /** Path in Config, also the CONFIG_FILE key (`upstream.attemptTimeoutMs`). */
  key: string;
  kind: FieldKind;
  help: string;
}

const int = (min: number, max: number): FieldKind => ({ type: 'int', min, max });
const ms = (min: number, max: number): FieldKind => int(min, max);
const HOUR = 3_600_000;
const GIB = 1024 ** 3;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const ACCESS_LOGS = ['all', 'misses', 'off'] as const;
const INVALIDATION_MODES = ['precise', 'head'] as const;

export const FIELDS: readonly Field[] = [
  { env: 'PORT', key: 'port', kind: int(0, 65535), help: 'TCP port to listen on (0: any free port).' },
  { env: 'HOST', key: 'host', kind: { type: 'host' }, help: 'Interface to bind.' },
  {
    env: 'UPSTREAM_URLS',
    key: 'upstreamUrls',
    kind: { type: 'urls' },
    help:
      'Comma-separated http(s) base URLs of the upstream service, optionally with a path ' +
      'prefix (trailing slash dropped). Empty: the built-in simulator is started in-process.',
  },
  {
    env: 'PUBLIC_BASE_URL',
    key: 'publicBaseUrl',
    kind: { type: 'url' },
    help:
      'Base URL of this proxy as clients see it; next/previous links are built ' +
      'from it, never from request headers. Default http://localhost:$PORT.',
  },
  {
    env: 'CACHE_MAX_BYTES',
    key: 'cacheMaxBytes',
    kind: { type: 'bytes', min: 1024 * 1024, max: 64 * GIB },
    help:
      'Memory cache bound: bytes, or with a unit (KiB, MiB, GiB = ' +
      '1024-based; KB, MB, GB = 1000-based), e.g. 256MiB.',
  },
  { env: 'LOG_LEVEL', key: 'logLevel', kind: { type: 'enum', values: LOG_LEVELS }, help: 'pino log level.' },
  {
    env: 'ACCESS_LOG',
    key: 'accessLog',
    kind: { type: 'enum', values: ACCESS_LOGS },
    help: 'Which requests get an access-log line: all, misses (everything but fresh hits), off.',
  },
  {
    env: 'REDIS_URL',
    key: 'redisUrl',
    kind: { type: 'redisUrl' },
    help:
      'Shared second cache tier and fleet coordination: redis://, rediss://, ' +
      'redis-cluster://h1:p1,h2:p2, redis-sentinel://h1:p1,h2:p2/master. Empty: memory tier only.',
  },
  {
    env: 'TRUST_PROXY',
    key: 'trustProxy',
    kind: { type: 'addresses' },
    help:
      'Comma-separated IPs/CIDRs (or loopback, linklocal, uniquelocal) of reverse proxies ' +
      'whose X-Forwarded-For hop is believed (client IP for rate limiting). Empty: none.',
  },
  {
    env: 'ADMIN_ALLOW',
    key: 'adminAllow',
    kind: { type: 'addresses' },
    help:
      'Comma-separated IPs/CIDRs (or loopback, linklocal, uniquelocal) of clients allowed on ' +
      '/metrics, /status and /dashboard (not /purge: PURGE_ALLOW); the client address is resolved ' +
      'through TRUST_PROXY. Others get the 404 envelope. Default loopback,uniquelocal.',
  },
  {
    env: 'PURGE_ALLOW',
    key: 'purgeAllow',
    kind: { type: 'addresses' },
    help:
      'Comma-separated IPs/CIDRs (or loopback, linklocal, uniquelocal) of clients allowed to ' +
      'POST /purge, apart from ADMIN_ALLOW (a Prometheus server may read /metrics and not purge). ' +
      'Others get the 404 envelope. Default loopback.',
  },
  {
    env: 'ADMIN_HOSTS',
    key: 'adminHosts',
    kind: { type: 'hostnames' },
    help:
      'Comma-separated host names operator routes (/status, /metrics, /dashboard, /purge) answer ' +
      'under, besides IP literals and localhost: a request whose Host header is any other name ' +
      'gets the 404 envelope (a DNS-rebinding page sends its own name). Empty: none.',
  },
  {
    env: 'METRICS_CACHE_MS',
    key: 'metricsCacheMs',
    kind: ms(0, 60_000),
    help:
      'GET /metrics renders at most once per this many ms; scrapes in ' +
      'between get the last rendering (0: render every scrape).',
  },
  { env: 'MAX_PAGE_SIZE', key: 'limits.maxPageSize', kind: int(1, 10_000), help: 'Largest accepted page_size.' },
  { env: 'MAX_DAYS', key: 'limits.maxDays', kind: int(1, 36_500), help: 'Largest accepted days.' },
  {
    env: 'MAX_BATCH_ITEMS',
    key: 'limits.maxBatchItems',
    kind: int(1, 1000),
    help: 'Most requests in one POST /batch (each item counts toward the rate limit).',
  },
  {
    env: 'REQUEST_TIMEOUT_MS',
    key: 'limits.requestTimeoutMs',
    kind: ms(100, 10 * 60_000),
    help: 'Whole client request, upstream phase included (504 past it).',
  },
  {
    env: 'WORKERS',
    key: 'workers',
    kind: { type: 'perCore', max: 256 },
    help:
      'Server processes on one port (node:cluster), as one fleet: an integer, or ' +
      'auto (one per core). Each keeps its own memory tier (CACHE_MAX_BYTES ' +
      'each); without REDIS_URL the primary process is their bus and lease.',
  },
  {
    env: 'WORKERS_LEND_WAIT_MS',
    key: 'workersLendWaitMs',
    kind: ms(1, 10_000),
    help:
      'WORKERS > 1 without REDIS_URL: a miss on a key another worker filled waits at most this long for that ' +
      "worker's entry, then asks the upstream (raise it on a machine so loaded that its workers answer late).",
  },
  {
    env: 'SHUTDOWN_TIMEOUT_MS',
    key: 'shutdownTimeoutMs',
    kind: ms(100, HOUR),
    help:
      'Drain deadline after SIGTERM, SIGINT or SIGHUP. Unset: REQUEST_TIMEOUT_MS + 1000, so every request accepted ' +
      'before the signal ends on its own (a 504 at worst). Set shorter (e.g. to fit an orchestrator grace period): ' +
      'requests still running at the deadline get a 503 envelope (code 5030). The process exits 0 either way.',
  },
  {
    env: 'DRAIN_DELAY_MS',
    key: 'drainDelayMs',
    kind: ms(0, 10 * 60_000),
    help:
      'Lame duck after SIGTERM: for this long /readyz answers 503 while requests and new connections are still ' +
      'served, so a balancer that reads readiness moves away first; then the drain (SHUTDOWN_TIMEOUT_MS) begins. ' +
      '0: the drain begins at once. Behind Kubernetes or a balancer probing /readyz, set it to a few probe ' +
      'periods. SIGINT and a second signal skip it.',
  },
  {
    env: 'MAX_CONNECTIONS',
    key: 'http.maxConnections',
    kind: int(0, 1_000_000),
    help:
      'Client connections held at once; at the cap a new connection closes the oldest idle one (no request ' +
      'in flight), or is closed at once when every held one is busy (0: no cap).',
  },
  {
    env: 'MAX_CONNECTIONS_PER_CLIENT',
    key: 'http.maxConnectionsPerClient',
    kind: int(0, 1_000_000),
    help:
      'Connections one client address (the socket peer) holds at once; past it its oldest idle one is closed ' +
      'for the new one, or the new one is closed at once. Peers in TRUST_PROXY are exempt (0: no limit).',
  },
  {
    env: 'HEADERS_TIMEOUT_MS',
    key: 'http.headersTimeoutMs',
    kind: ms(100, 5 * 60_000),
    help: 'Time for a client to send its request headers (408 envelope past it); the whole request gets twice this.',
  },
  {
    env: 'KEEP_ALIVE_TIMEOUT_MS',
    key: 'http.keepAliveTimeoutMs',
    kind: ms(100, 10 * 60_000),
    help: "Idle time before a keep-alive client connection is closed (keep it above a load balancer's idle timeout).",
  },
  {
    env: 'UPSTREAM_CONNECT_TIMEOUT_MS',
    key: 'upstream.connectTimeoutMs',
    kind: ms(1, 60_000),
    help: 'Connect timeout of one upstream attempt.',
  },
  {
    env: 'UPSTREAM_TIMEOUT_MS',
    key: 'upstream.attemptTimeoutMs',
    kind: ms(1, 10 * 60_000),
    help: 'Time to the full response of one upstream attempt.',
  },
  {
    env: 'UPSTREAM_DEADLINE_MS',
    key: 'upstream.totalDeadlineMs',
    kind: ms(1, 10 * 60_000),
    help: 'Whole upstream phase of one request, retries and hedges included.',
  },
  {
    env: 'UPSTREAM_MAX_ATTEMPTS',
    key: 'upstream.maxAttempts',
    kind: int(1, 10),
    help: 'Attempts per request, on distinct upstreams where possible.',
  },
  {
    env: 'UPSTREAM_HEDGE_AFTER_MS',
    key: 'upstream.hedgeAfterMs',
    kind: ms(0, 60_000),
    help: 'Race a second upstream when an attempt is slower than this; 0 disables hedging.',
  },
  {
    env: 'UPSTREAM_HEDGE_QUANTILE',
    key: 'upstream.hedgeQuantile',
    kind: { type: 'number', min: 0, max: 0.999 },
    help:
      'When > 0: hedge after this latency quantile of the fastest ' +
      'healthy upstream instead, floored by UPSTREAM_HEDGE_AFTER_MS.',
  },
  {
    env: 'UPSTREAM_PROBE_INTERVAL_MS',
    key: 'upstream.probeIntervalMs',
    kind: ms(100, HOUR),
    help:
      'Health/head probe interval per upstream (the sparse one once the ' +
      'block interval is learned, see UPSTREAM_PROBE_DENSE_MS).',
  },
  {
    env: 'UPSTREAM_PROBE_DENSE_MS',
    key: 'upstream.probeDenseMs',
    kind: ms(0, HOUR),
    help:
      'Probe interval per upstream around the expected next block (the 5th to 95th percentile of the recent ' +
      'block intervals after the last new head, widened each side by 5 % of the median interval, at ' +
      'most 250 ms, at least one dense step); at most 20 probes in that window (a longer step for a wider one); ' +
      'past it the interval grows back to UPSTREAM_PROBE_INTERVAL_MS. 0: a fixed UPSTREAM_PROBE_INTERVAL_MS.',
  },
  {
    env: 'UPSTREAM_MAX_LAG_BLOCKS',
    key: 'upstream.maxLagBlocks',
    kind: int(0, 1_000_000),
    help: 'An upstream further behind the best head is not used for head-sensitive endpoints.',
  },
  {
    env: 'UPSTREAM_BREAKER_FAILURES',
    key: 'upstream.breakerFailures',
    kind: int(1, 1000),
    help: "Consecutive failures that open an upstream's circuit breaker.",
  },
  {
    env: 'UPSTREAM_BREAKER_COOLDOWN_MS',
    key: 'upstream.breakerCooldownMs',
    kind: ms(100, HOUR),
    help: 'Open time before the half-open probe.',
  },
  {
    env: 'UPSTREAM_CONNECTIONS',
    key: 'upstream.connections',
    kind: int(1, 4096),
    help: 'Keep-alive connections per upstream.',
  },
  {
    env: 'UPSTREAM_MAX_BODY_BYTES',
    key: 'upstream.maxBodyBytes',
    kind: { type: 'bytes', min: 1024, max: GIB },
    help: 'Largest upstream body accepted (same units as CACHE_MAX_BYTES).',
  },
  {
    env: 'UPSTREAM_MAX_QUEUE',
    key: 'upstream.maxQueue',
    kind: int(0, 1_000_000),
    help:
      'Requests waiting for a connection to one upstream (beyond ' +
      'UPSTREAM_CONNECTIONS in flight); past it a request is refused at once with a 503 ' +
      'envelope and Retry-After. Time queued never counts against the upstream.',
  },
  {
    env: 'UPSTREAM_HEAD_MARGIN_BLOCKS',
    key: 'upstream.headMarginBlocks',
    kind: int(0, 1_000_000),
    help:
      'A reported head further ahead of the trusted one than this (plus twice the observed block rate) is believed ' +
      'only once another upstream confirms it (its own next probe never does; a height once found implausible ' +
      'never becomes plausible). An upstream whose far-ahead head the others refute sits out UPSTREAM_SIT_OUT_MS.',
  },
  {
    env: 'UPSTREAM_QUORUM',
    key: 'upstream.quorum',
    kind: int(1, 10),
    help:
      'Distinct upstreams that must return the same content (time stamps and links aside) before an answer is kept ' +
      'with the final (long) TTL; on disagreement the majority wins, else the answer is served short-lived and the ' +
      'dispute logged on /status. 1: no vote. Costs extra upstream requests on misses of final data only.',
  },
  {
    env: 'UPSTREAM_SIT_OUT_MS',
    key: 'upstream.sitOutMs',
    kind: ms(1000, 24 * HOUR),
    help:
      'How long an upstream is benched (no requests, no votes, heads ignored) after its ' +
      'head was refuted by the others or it was in the minority of too many disputes.',
  },
  {
    env: 'UPSTREAM_DISPUTE_STRIKES',
    key: 'upstream.disputeStrikes',
    kind: int(1, 1000),
    help: 'Disputes an upstream may lose (be in the minority of) within UPSTREAM_DISPUTE_WINDOW_MS before it sits out.',
  },
  {
    env: 'UPSTREAM_DISPUTE_WINDOW_MS',
    key: 'upstream.disputeWindowMs',
    kind: ms(1000, 24 * HOUR),
    help: 'Window over which lost disputes are counted against an upstream.',
  },
  {
    env: 'REDIS_COMMAND_TIMEOUT_MS',
    key: 'redis.commandTimeoutMs',
    kind: ms(1, 60_000),
    help: 'Per-command Redis timeout; past it the request goes on without the tier.',
  },
  {
    env: 'REDIS_KEY_PREFIX',
    key: 'redis.keyPrefix',
    kind: { type: 'prefix' },
    help: 'Prefix of every Redis key (1-64 printable characters, no spaces).',
  },
  {
    env: 'REDIS_COMPRESS_ABOVE_BYTES',
    key: 'redis.compressAboveBytes',
    kind: { type: 'bytes', min: 0, max: GIB },
    help: 'Bodies above this size are stored in Redis with their gzip variant beside them.',
  },
  { env: 'REDIS_LEASE_MS', key: 'redis.leaseMs', kind: ms(100, 60_000), help: 'Fleet-wide single-flight lease.' },
  {
    env: 'REDIS_BREAKER_FAILURES',
    key: 'redis.breakerFailures',
    kind: int(1, 1000),
    help: "Consecutive failures that open the Redis tier's breaker.",
  },
  {
    env: 'REDIS_BREAKER_COOLDOWN_MS',
    key: 'redis.breakerCooldownMs',
    kind: ms(100, HOUR),
    help: "Redis tier breaker's open time.",
  },
  {
    env: 'REDIS_HEARTBEAT_MS',
    key: 'redis.heartbeatMs',
    kind: ms(50, 60_000),
    help:
      "How often each replica writes its entry in the fleet's member list " +
      '(/status, the status page); an entry not renewed for three intervals is dropped.',
  },
  {
    env: 'RATE_LIMIT_ENABLED',
    key: 'rateLimit.enabled',
    kind: { type: 'bool' },
    help: 'Per-client-IP rate limit (true/false/1/0/yes/no/on/off).',
  },
  {
    env: 'RATE_LIMIT_MAX',
    key: 'rateLimit.max',
    kind: int(1, 1_000_000_000),
    help: 'Requests per window per client IP (hits and misses).',
  },
  { env: 'RATE_LIMIT_WINDOW_MS', key: 'rateLimit.windowMs', kind: ms(1000, 24 * HOUR), help: 'Rate-limit window.' },
  {
    env: 'RATE_LIMIT_MAX_CLIENTS',
    key: 'rateLimit.maxClients',
    kind: int(100, 10_000_000),
    help:
      'Clients (IP, IPv6 /64, API key) whose rate-limit and miss-budget buckets are ' +
      'held, per table (about 230 bytes each): past it the oldest idle ones (full ' +
      'again) go first, else the oldest, which starts again with a full budget.',
  },
  {
    env: 'RATE_LIMIT_MISS_BUDGET',
    key: 'missBudget',
    kind: int(0, 1_000_000_000),
    help:
      'Upstream requests per RATE_LIMIT_WINDOW_MS that one client (IP, IPv6 /64) may cause: a request that ' +
      'leads an upstream fetch costs one (joining one under way and cache hits are free; a page pays one per ' +
      'part it leads); once spent, requests that would miss get 429 (code 4292) with Retry-After while cached ' +
      'answers are still served. Unset: one fifth of RATE_LIMIT_MAX (rounded up), so lowering the request limit ' +
      'lowers the upstream work a client can cause with it. 0: off. Clients with X-API-Key pay credits instead.',
  },
  {
    env: 'CREDITS_HIT_COST',
    key: 'credits.hitCost',
    kind: int(0, 1_000_000),
    help:
      'Credits an X-API-Key request costs, hit or miss (per endpoint and page: ' +
      "creditCosts: in CONFIG_FILE). A key's max is its credits per window.",
  },
  {
    env: 'CREDITS_MISS_COST',
    key: 'credits.missCost',
    kind: int(0, 1_000_000),
    help:
      'Credits an X-API-Key request costs on top for each ' +
      'upstream request it leads (a page part or batch item each).',
  },
  {
    env: 'PASSTHROUGH',
    key: 'passthrough.routes',
    kind: { type: 'routes' },
    help:
      'Legacy paths forwarded to a backend (cached by PASSTHROUGH_CACHE): comma-separated /prefix=URL ' +
      'pairs (e.g. /api=http://legacy:8080). A URL without a path keeps the request path; with ' +
      'one, it replaces the prefix. Prefixes may not overlap the API, the ops paths or each other.',
  },
  {
    env: 'PASSTHROUGH_TIMEOUT_MS',
    key: 'passthrough.timeoutMs',
    kind: ms(100, 10 * 60_000),
    help:
      'Passthrough: time to the backend response headers, and the longest ' +
      'pause while streaming its body (504 envelope before the headers).',
  },
  {
    env: 'PASSTHROUGH_CACHE',
    key: 'passthrough.cache',
    kind: { type: 'passCache' },
    help:
      'Passthrough GET/HEAD answers kept per prefix: comma-separated /prefix=POLICY pairs, POLICY off, ' +
      'a duration (2s, 60s) or head (until a new block, at most 60 s). A prefix without one follows the ' +
      "backend's Cache-Control (RFC 9111). no-store, private and Set-Cookie answers are never kept.",
  },
  {
    env: 'PASSTHROUGH_IGNORE_PARAMS',
    key: 'passthrough.ignoreParams',
    kind: { type: 'paramNames' },
    help:
      'Comma-separated query parameters (cache-busters such as timestamp, _) dropped from ' +
      'passthrough cache keys and from the requests forwarded to the backend.',
  },
  {
    env: 'PASSTHROUGH_CACHE_MAX_BODY_BYTES',
    key: 'passthrough.cacheMaxBodyBytes',
    kind: { type: 'bytes', min: 0, max: 64 * 1024 ** 2 },
    help: 'Largest passthrough body kept in the cache; a larger one is streamed uncached (and counted).',
  },
  {
    env: 'RATE_LIMIT_ALLOW',
    key: 'rateLimitAllow',
    kind: { type: 'addresses' },
    help:
      'Comma-separated IPs/CIDRs (or loopback, linklocal, uniquelocal) never rate limited ' +
      '(clients without X-API-Key). API keys with their own budgets: apiKeys: in CONFIG_FILE.',
  },
  {
    env: 'SIM_BLOCK_INTERVAL_MS',
    key: 'simulator.blockIntervalMs',
    kind: ms(10, HOUR),
    help: 'Built-in simulator: time between blocks (used only without UPSTREAM_URLS).',
  },
  {
    env: 'SIM_SEED',
    key: 'simulator.seed',
    kind: int(0, 4_294_967_295),
    help: 'Built-in simulator: seed of its deterministic chain.',
  },
  {
    env: 'MAX_STREAMS',
    key: 'stream.maxStreams',
    kind: int(0, 1_000_000),
    help:
      'Concurrent stream subscribers, /stream/heads and ' +
      '/stream/activity together (503 beyond; 0: the streams are off).',
  },
  {
    env: 'STREAM_MAX_PER_CLIENT',
    key: 'stream.maxPerClient',
    kind: int(1, 1_000_000),
    help:
      'Concurrent stream subscribers (/stream/heads and /stream/activity ' +
      'together) per client IP (429 beyond; the client IP as for rate limiting).',
  },
  {
    env: 'STREAM_HEARTBEAT_MS',
    key: 'stream.heartbeatMs',
    kind: ms(10, HOUR),
    help: 'Interval of the comment heartbeat on every open stream.',
  },
  {
    env: 'STREAM_RETRY_MS',
    key: 'stream.retryMs',
    kind: ms(0, HOUR),
    help: 'Reconnection delay suggested to clients (the retry: field).',
  },
  {
    env: 'STREAM_HISTORY',
    key: 'stream.history',
    kind: int(1, 1_000_000),
    help:
      'Head events kept for resuming with Last-Event-ID (with REDIS_URL also the length of the history the fleet ' +
      'shares, so a client resumes on any replica).',
  },
  {
    env: 'STREAM_HISTORY_MAX_AGE_MS',
    key: 'stream.historyMaxAgeMs',
    kind: ms(1000, 7 * 24 * HOUR),
    help: "With REDIS_URL: events older than this leave the head stream's history the fleet shares.",
  },
  {
    env: 'STREAM_MAX_BUFFER_BYTES',
    key: 'stream.maxBufferBytes',
    kind: { type: 'bytes', min: 1024, max: GIB },
    help:
      "Queued live bytes plus the socket's unsent bytes past which a slow subscriber is " +
      'disconnected (it resumes with Last-Event-ID); replays are paced and do not count.',
  },
  {
    env: 'STREAM_MAX_BUFFER_TOTAL_BYTES',
    key: 'stream.maxBufferTotalBytes',
    kind: { type: 'bytes', min: 64 * 1024, max: 64 * GIB },
    help:
      'Queued live bytes of all stream subscribers together (each queued event charged its bytes and 64 ' +
      'more): when an event does not fit, the subscribers holding most are disconnected as too slow ' +
      'first, so MAX_STREAMS slow readers cannot hold MAX_STREAMS x STREAM_MAX_BUFFER_BYTES.',
  },
  {
    env: 'STREAM_ACTIVITY_MAX_WATCH',
    key: 'stream.activityMaxWatch',
    kind: int(1, 10_000),
    help: 'Addresses and contracts one /stream/activity connection may watch (400 beyond).',
  },
  {
    env: 'STREAM_ACTIVITY_HISTORY_BYTES',
    key: 'stream.activityHistoryBytes',
    kind: { type: 'bytes', min: 0, max: GIB },
    help:
      'Memory of the /stream/activity history (matched transaction records and ' +
      'block names) kept for Last-Event-ID resumes; oldest blocks go first.',
  },
  {
    env: 'STREAM_ACTIVITY_LINGER_MS',
    key: 'stream.activityLingerMs',
    kind: ms(0, 24 * HOUR),
    help:
      'An address or contract stays watched this long after its last /stream/activity connection closed, so a ' +
      'reconnect with Last-Event-ID gets what it missed. A client leaves at most STREAM_MAX_PER_CLIENT x ' +
      'STREAM_ACTIVITY_MAX_WATCH lingering (its oldest goes first); STREAM_ACTIVITY_WATCH_BYTES bounds them all.',
  },
  {
    env: 'STREAM_ACTIVITY_WATCH_BYTES',
    key: 'stream.activityWatchBytes',
    kind: { type: 'bytes', min: 64 * 1024, max: GIB },
    help:
      'Memory of the /stream/activity watches, open and lingering (800 bytes per address or ' +
      'contract watched, 120 per connection and address): when a new stream needs room the ' +
      'oldest lingering watches are forgotten; a stream that would not fit even then ' +
      'gets 503 (code 5032) with Retry-After. Added to the heap cap the entry point derives.',
  },
  {
    env: 'REFRESH_AHEAD_MAX_KEYS',
    key: 'refreshAhead.maxKeys',
    kind: int(0, 10_000),
    help:
      'Hot head-dependent entries (first pages of block/list, tx/list, tx/list/pending, ' +
      'chain/summary, tx/count/today, holders at the page sizes clients use; block/max unless a probe ' +
      'already stored the new head) refreshed on every new head, chosen from recent traffic; 0: off.',
  },
  {
    env: 'INVALIDATION_MODE',
    key: 'invalidation.mode',
    kind: { type: 'enum', values: INVALIDATION_MODES },
    help:
      'precise: an entry about an address, contract, token or block stays fresh until a block ' +
      "names it (read from each block's transactions), bounded by INVALIDATION_MAX_AGE_MS; " +
      'head: every head-dependent entry is stale on every new block (the older rule).',
  },
  {
    env: 'INVALIDATION_MAX_AGE_MS',
    key: 'invalidation.maxAgeMs',
    kind: ms(0, 24 * HOUR),
    help:
      'Precise invalidation: longest freshness of an entry kept by its tags ' +
      '(changes the API cannot show, such as a balance moved by an internal contract ' +
      'transfer); per endpoint: invalidation.maxAgeByEndpoint in CONFIG_FILE.',
  },
  {
    env: 'INVALIDATION_LIST_MAX_AGE_MS',
    key: 'invalidation.listMaxAgeMs',
    kind: ms(0, 24 * HOUR),
    help:
      'Precise invalidation: the same bound for the transaction lists (tx/listByAddress, tx/nrc20, ' +
      'token/tx/list), whose every change is a transaction a block or the pending pool names; it ' +
      'only covers a change the reader could not see. invalidation.maxAgeByEndpoint overrides both.',
  },
  {
    env: 'INVALIDATION_MAX_AGE_GROWTH',
    key: 'invalidation.maxAgeGrowth',
    kind: int(1, 1024),
    help:
      "Precise invalidation: how far the safety bound of a transaction list's key may grow. Each " +
      "refetch at the bound that finds the same content doubles that key's bound, up to this multiple of " +
      'INVALIDATION_LIST_MAX_AGE_MS (balances keep INVALIDATION_MAX_AGE_MS: an internal transfer would ' +
      'stay unseen as long as a grown bound); content that changed though no block named it ' +
      'resets it and is counted (chainproxy_invalidation_unnamed_changes_total). 1: fixed bounds.',
  },
  {
    env: 'INVALIDATION_READ_TIMEOUT_MS',
    key: 'invalidation.readTimeoutMs',
    kind: ms(50, 10 * 60_000),
    help:
      "Precise invalidation: time to read a block's touched set (all " +
      'pages); after it, that block falls back to the head rule.',
  },
  {
    env: 'INVALIDATION_PENDING_POLL_MS',
    key: 'invalidation.pendingPollMs',
    kind: ms(0, HOUR),
    help:
      'Pending-pool poll: one interval after the pool was last read (by a poll or with a block), it reads the ' +
      'pool, publishes newly seen pending transactions and, when the pool changed, invalidates the pending ' +
      'lists (which it keeps fresh between blocks); 0: off (pending lists then keep their own 1 s rule).',
  },
  {
    env: 'CACHE_TAG_HEADERS',
    key: 'cacheTagHeaders',
    kind: { type: 'bool' },
    help: "Cache-Tag and Surrogate-Key response headers listing an answer's dependency tags (for CDN purges).",
  },
];

export const FIELD_BY_KEY: ReadonlyMap<string, Field> = new Map(FIELDS.map((f) => [f.key, f]));

/** Objects of Config whose keys are fields (`upstream.*` ...); `policies` is handled apart. */
export const SECTIONS: ReadonlySet<string> = new Set(
  FIELDS.filter((f) => f.key.includes('.')).map((f) => f.key.split('.')[0]!),
);

/** Read a value at a dotted path. */
export function getPath(root: object, key: string): unknown {
  let v: unknown = root;
  for (const part of key.split('.'))
    v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[part] : undefined;
  return v;
}

/** Write a value at a dotted path (intermediate objects must exist). */
export function setPath(root: object, key: string, value: unknown): void {
  const parts = key.split('.');
  let o = root as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) o = o[part] as Record<string, unknown>;
  o[parts[parts.length - 1]!] = value;
}
