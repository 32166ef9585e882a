/**
 * The one table of metrics: every `chainproxy_*` family the proxy exposes, by
 * name (without the prefix), with its type, label names, buckets and help.
 * Families are built from it by ./declare.ts only; docs/metrics.md is
 * generated from it (`npm run docs`). Names, labels, buckets and help are
 * read by dashboards and alert rules (config/): change them as an API.
 */

export const METRIC_PREFIX = 'chainproxy_';

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface MetricDecl {
  type: MetricType;
  labels: readonly string[];
  /** Histograms only: upper bounds, ascending. */
  buckets?: readonly number[];
  help: string;
}

const counter = <const L extends readonly string[]>(labels: L, help: string) =>
  ({ type: 'counter', labels, help }) as const;
const gauge = <const L extends readonly string[]>(labels: L, help: string) =>
  ({ type: 'gauge', labels, help }) as const;
const histogram = <const L extends readonly string[]>(labels: L, buckets: readonly number[], help: string) =>
  ({ type: 'histogram', labels, buckets, help }) as const;

/** Client latency: sub-millisecond memory hits up to 10 s cold misses. */
const REQUEST_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
/** Upstream and passthrough latency. */
const UPSTREAM_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const METRICS = {
  // Client answers (the hot path: dense, src/metrics/prometheus.ts)
  requests_total: counter(
    ['endpoint', 'cache', 'status_class'],
    'Client answers, by endpoint (other: error envelopes for any other path), HTTP status class and cache ' +
      'result: the X-Cache word (HIT, MISS, STALE, BYPASS, ERROR).',
  ),
  request_duration_seconds: histogram(
    ['endpoint', 'cache'],
    REQUEST_BUCKETS,
    'Time from receiving a client request to sending the answer, by endpoint and cache result.',
  ),
  upstream_requests_saved_total: counter(
    ['endpoint'],
    'Client requests answered without an upstream request of their own (hit, stale, joined flight).',
  ),
  singleflight_joins_total: counter(
    ['endpoint'],
    'Requests that joined an upstream fetch already in flight for the same key.',
  ),
  upstream_retries_total: counter(['endpoint'], 'Upstream attempts retried after a failed attempt.'),
  upstream_hedges_total: counter(['endpoint'], 'Hedged upstream attempts started because the first one was slow.'),
  cache_evictions_total: counter(['tier'], 'Entries evicted from a cache tier to make room.'),
  cache_tier_errors_total: counter(['tier', 'op'], 'Failed operations on a cache tier, by operation.'),
  // The process
  build_info: gauge(
    ['version', 'node'],
    'Always 1; the labels name this build: the package version and the Node.js version running it.',
  ),
  rate_limited_total: counter([], 'Client requests refused by the rate limiter.'),
  log_lines_dropped_total: counter(
    [],
    'Log lines dropped because standard output (a pipe or socket) was not read fast enough or was closed.',
  ),
  // Upstream requests
  upstream_requests_total: counter(
    ['upstream', 'endpoint', 'outcome'],
    'Upstream requests (attempts) by upstream, endpoint and outcome.',
  ),
  upstream_background_requests_total: counter(
    ['purpose'],
    "The proxy's own upstream requests (attempts, head probes included) by purpose (probe, block, pending, " +
      "refresh): the x-chainproxy-purpose header; clients' misses are the rest.",
  ),
  upstream_request_duration_seconds: histogram(
    ['upstream', 'endpoint'],
    UPSTREAM_BUCKETS,
    'Duration of upstream requests (attempts), by upstream and endpoint.',
  ),
  // Pulled at scrape time (src/metrics/prometheus.ts)
  cache_entries: gauge(['tier'], 'Entries held by a cache tier.'),
  cache_bytes: gauge(['tier'], 'Bytes held by a cache tier.'),
  cache_max_bytes: gauge(['tier'], 'Configured capacity of a cache tier in bytes.'),
  upstream_head: gauge(['upstream'], 'Latest block height reported by an upstream.'),
  upstream_lag_blocks: gauge(['upstream'], 'Blocks an upstream is behind the best head.'),
  upstream_up: gauge(['upstream'], '1 when the upstream is healthy (probes succeed, breaker not open), else 0.'),
  upstream_lagging: gauge(
    ['upstream'],
    '1 when the upstream is too far behind the best head to serve head-fresh requests, else 0.',
  ),
  upstream_in_flight: gauge(['upstream'], 'Upstream requests currently in flight.'),
  upstream_breaker_state: gauge(
    ['upstream', 'state'],
    'Circuit breaker state of an upstream: 1 for the current state, 0 for the others.',
  ),
  chain_best_head: gauge([], 'Highest block height the proxy trusts (monotonic).'),
  chain_final_height: gauge([], 'Highest block height seen final in upstream data.'),
  redis_up: gauge([], '1 when the Redis cache tier is healthy, 0 when not; absent without a Redis tier.'),
  // Cache tiers (src/metrics/refetch.ts, admission.ts)
  refetches_total: counter(
    ['endpoint'],
    'Fetched answers that replaced an entry held in the memory tier, by endpoint.',
  ),
  refetches_unchanged_total: counter(
    ['endpoint'],
    'Refetches whose answer equalled the entry it replaced (same status, same content without volatile ' +
      'stamps), by endpoint.',
  ),
  cache_admissions_total: counter(
    ['verdict'],
    'Redis-tier hits by admission verdict: promoted into the memory tier (read before, and more often than the ' +
      'entry it evicts), or refused (answered from the Redis value alone).',
  ),
  // Head detection and trust (src/upstream/head-metrics.ts, trust-metrics.ts, src/consensus/metrics.ts)
  head_detection_delay_seconds: histogram(
    [],
    [0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10],
    'Per new head: time from the end of the last probe answer still in sync (reporting the best head, nothing ' +
      'newer) to the moment the proxy believed the new head; an upper bound of how long the upstreams had it ' +
      'first.',
  ),
  head_blocks_total: counter([], 'Blocks the trusted chain head moved forward by.'),
  head_probes_total: counter([], 'Head probes answered or failed, all upstreams together.'),
  head_block_interval_seconds: gauge([], 'Median of the recent per-block intervals the probe cadence follows.'),
  upstream_shed_total: counter(
    ['upstream'],
    "Upstream requests refused at once (503, Retry-After) because the upstream's queue was full.",
  ),
  chain_head_rebases_total: counter(
    [],
    'Times every upstream reported a lower head for several probe intervals and the proxy followed them down.',
  ),
  quorum_votes_total: counter(
    ['endpoint', 'outcome'],
    'Quorum votes before a final answer is stored, by outcome: agreed, majority (a dispute the majority ' +
      'settled), disputed (no majority: served short-lived), short (too few upstreams answered).',
  ),
  upstream_sit_outs_total: counter(
    ['upstream', 'reason'],
    'Times an upstream was benched: reason head (a head the other upstreams refuted) or disputes (the minority ' +
      'of too many disputes).',
  ),
  // Invalidation and refresh (src/invalidation/metrics.ts, src/refresh/metrics.ts)
  invalidation_blocks_total: counter(
    ['outcome'],
    'Touched sets published (read here or received from the fleet), by outcome: complete, or incomplete (head ' +
      'rule for that block).',
  ),
  invalidation_fallbacks_total: counter(
    ['reason'],
    'Blocks that fell back to the head rule, by reason: timeout, error (upstream failure, partial pages), gap ' +
      '(too far behind after an outage), not-shared (the fleet reader did not share it in time).',
  ),
  invalidation_tags_per_block: histogram(
    [],
    [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
    'Tags a complete block invalidated (addresses, contracts, tokens).',
  ),
  invalidation_entries_total: counter(
    ['endpoint'],
    'Cache entries found invalidated by a touched set at lookup, by endpoint.',
  ),
  invalidation_unnamed_changes_total: counter(
    ['endpoint'],
    'Refetches at the safety bound whose content had changed though no block named the entry (a change the API ' +
      'cannot show, such as an internal transfer), by endpoint. Each resets that key to its endpoint bound.',
  ),
  invalidation_guarded_total: counter(
    ['reason'],
    "Facts precise invalidation did not trust, so the head rule or the entry's own TTL applied, by reason: " +
      "cross-check (a block's pages disagreed with each other or with its record), behind-upstream (an answer " +
      'from an upstream behind the best head), future-height (an answer about a height above the trusted head), ' +
      "reorg (a non-final height's hash changed), joined-late (an entry older than what this replica or the " +
      'fleet record covers), pool-unknown (the pending pool could not be read).',
  ),
  invalidation_pending_seen_total: counter(
    [],
    'Pending transactions newly seen by the poll between blocks (published to the touched-set subscribers).',
  ),
  invalidation_refresh_ahead_total: counter(
    ['outcome'],
    'Hot entries invalidated by a block and fetched again before clients asked, by outcome (ok, error).',
  ),
  invalidation_read_seconds: histogram(
    [],
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    "Time to read a block's touched set whole.",
  ),
  invalidation_tags: gauge([], 'Tags remembered with the height of the last block naming them.'),
  invalidation_tag_bytes: gauge([], 'Estimated bytes of the tag map (charged to CACHE_MAX_BYTES).'),
  invalidation_unchanged_refetches_total: counter(
    ['endpoint', 'ended'],
    'Answers fetched again the same as the entry they replaced, by endpoint and what ended that entry: named ' +
      "(a block named a tag, the fail-safe, its block's finality or a reorg), head (the head rule), bound (a " +
      "tag-kept entry's safety bound), ttl (the endpoint's own TTL), other (a purge, a refresh while fresh).",
  ),
  invalidation_reorg_window_blocks: gauge(
    [],
    'Blocks below the head the last reorg window reached (down to the newest final block the block list shows).',
  ),
  invalidation_reorg_window_cut_total: counter(
    [],
    'Reorg windows cut by their bound (300 blocks) before a final block was listed: deeper non-final blocks ' +
      'are not watched for a new hash.',
  ),
  refresh_ahead_total: counter(['outcome'], 'Entries refreshed ahead of clients on a new head, by outcome.'),
  // Purges (src/purge/metrics.ts)
  purges_total: counter(
    ['kind', 'mode', 'origin'],
    'Purges applied by this replica, by kind (key, tag, all), mode (hard, soft) and origin (here: asked of ' +
      'this replica; fleet: heard on the bus).',
  ),
  purged_entries_total: counter(
    ['kind', 'mode'],
    "Entries of this replica's memory tier reached by purges, by kind and mode (hard: dropped; soft: expired, " +
      'served stale while fetched again).',
  ),
  purge_marks: gauge([], 'Purge marks held (targets with their purge times; bounded in number and age).'),
  // Rate limits (src/ratelimit/metrics.ts)
  rate_limit_refused_total: counter(
    ['client'],
    'Requests refused with 429 by the rate limiter, by client (ip, or the API key name).',
  ),
  api_key_requests_total: counter(['key'], 'Requests admitted per API key (by name).'),
  api_key_credits_total: counter(['key'], 'Credits charged per API key (by name): request prices and miss prices.'),
  api_key_unknown_total: counter([], 'Requests refused with 401 for an X-API-Key that is not configured.'),
  miss_budget_charged_total: counter(
    ['client'],
    'Upstream requests led by a client and charged to it (miss budget, or credits for an API key), by client ' +
      'class (anonymous, or the API key name).',
  ),
  miss_budget_refused_total: counter(
    ['client'],
    'Requests refused with 429 (code 4292) because they would lead an upstream request beyond the client ' +
      'budget, by client class.',
  ),
  rate_limit_buckets: gauge([], 'Client rate-limit buckets held in memory (bounded).'),
  miss_budget_buckets: gauge([], 'Client miss-budget buckets held in memory (bounded).'),
  // Connections and reloads (src/http/connection-limits.ts, src/startup/live-settings.ts)
  connections_shed_total: counter(
    ['reason'],
    'Client connections closed by the connection caps: idle (an idle connection closed for a new one), cap (a ' +
      'new one refused at MAX_CONNECTIONS, every held one busy), client (a new one refused at ' +
      'MAX_CONNECTIONS_PER_CLIENT, every one of its address busy).',
  ),
  config_reloads_total: counter(
    ['result'],
    'Configuration reloads (SIGHUP), by result: applied, or invalid (the running configuration kept).',
  ),
  config_restart_pending: gauge(
    [],
    '1 when the last reload found a changed setting that only a restart applies, else 0.',
  ),
  // Fleet (src/fleet/duty.ts, member-metrics.ts)
  fleet_leader: gauge(
    [],
    "This replica holds the fleet leader lease (1): it alone probes the upstreams' heads, polls the pending " +
      'pool and refreshes ahead for the fleet (or for the workers of one machine without Redis). 0 for a single ' +
      'process without Redis.',
  ),
  fleet_leader_changes_total: counter([], 'Times this replica gained or lost the fleet leader lease.'),
  fleet_self_probes_total: counter(
    [],
    'Head probes a follower made on its own because it heard no leader heartbeat for longer than a probe interval.',
  ),
  fleet_members: gauge(
    [],
    'Replicas of the fleet (sharing REDIS_URL and REDIS_KEY_PREFIX) seen in the last heartbeat, this one included.',
  ),
  fleet_namespace_mismatch: gauge(
    [],
    '1 when a member of the fleet has another PUBLIC_BASE_URL than this replica: they share no cached entries ' +
      '(each fetches for itself). 0 when all agree.',
  ),
  // Streams (src/stream/metrics.ts, src/stream/activity/metrics.ts)
  stream_open: gauge([], 'Open stream subscriber connections (/stream/heads and /stream/activity).'),
  stream_queued_bytes: gauge(
    [],
    'Bytes queued for slow stream subscribers, all together (STREAM_MAX_BUFFER_TOTAL_BYTES bounds it).',
  ),
  stream_events_sent_total: counter(
    [],
    'Events written to stream subscribers (one per subscriber per event, replays included; /stream/heads and ' +
      '/stream/activity).',
  ),
  stream_clients_dropped_total: counter(
    ['reason'],
    'Stream subscribers disconnected by the proxy because they read too slowly (/stream/heads and ' +
      '/stream/activity): past their own STREAM_MAX_BUFFER_BYTES (slow), or when what all of them queue reached ' +
      'STREAM_MAX_BUFFER_TOTAL_BYTES (total).',
  ),
  stream_refused_total: counter(
    ['reason'],
    'Stream requests refused by a cap: MAX_STREAMS (max_streams), STREAM_MAX_PER_CLIENT (per_client), ' +
      'STREAM_ACTIVITY_WATCH_BYTES (watch_budget).',
  ),
  activity_streams: gauge([], 'Open /stream/activity connections.'),
  activity_watched_entities: gauge(
    ['state'],
    'Distinct addresses and contracts watched: by an open connection (open), or after their last one closed ' +
      '(lingering).',
  ),
  activity_history_bytes: gauge(
    [],
    'Memory charged to the /stream/activity resume history (STREAM_ACTIVITY_HISTORY_BYTES bounds it).',
  ),
  activity_watch_bytes: gauge(
    [],
    'Memory charged to the /stream/activity watches, open and lingering (STREAM_ACTIVITY_WATCH_BYTES bounds it).',
  ),
  activity_lingering_forgotten_total: counter(
    ['reason'],
    'Lingering watches forgotten before STREAM_ACTIVITY_LINGER_MS: their client left more than its share ' +
      '(client), or a new stream needed the room in STREAM_ACTIVITY_WATCH_BYTES (budget).',
  ),
  activity_events_delivered_total: counter(
    [],
    'Block events handed to /stream/activity subscribers (one per subscriber per block, replays included).',
  ),
  activity_dropped_total: counter([], '/stream/activity subscribers disconnected because they read too slowly.'),
  activity_tx_reads_failed_total: counter(
    [],
    'Blocks naming a watched entity whose transactions could not be read (event sent with complete: false).',
  ),
  // Pages (src/pages/metrics.ts)
  page_requests_total: counter(
    ['page', 'cache', 'status_class'],
    'Page requests answered, by page, cache result of the composed page (HIT, MISS, STALE, BYPASS, ERROR) and ' +
      'status class.',
  ),
  page_parts_total: counter(
    ['page', 'cache'],
    'Parts resolved by page compositions, by page and cache result (HIT, MISS, STALE, BYPASS, ERROR, SKIPPED).',
  ),
  page_composition_seconds: histogram(
    ['page'],
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    'Time to compose a page from its parts (cache lookups and upstream requests included).',
  ),
  // Passthrough (src/passthrough/metrics.ts)
  passthrough_requests_total: counter(
    ['route', 'status_class'],
    'Requests on passthrough routes, by route prefix and HTTP status class.',
  ),
  passthrough_request_duration_seconds: histogram(
    ['route'],
    UPSTREAM_BUCKETS,
    'Time from receiving a passthrough request to the end of its answer, by route prefix.',
  ),
  passthrough_failures_total: counter(
    ['route', 'reason'],
    'Passthrough backend failures answered with an envelope, by route prefix and reason.',
  ),
  passthrough_cache_total: counter(
    ['route', 'result'],
    'Passthrough answers by route prefix and X-Cache (HIT, MISS, STALE, BYPASS, ERROR).',
  ),
  passthrough_too_big_total: counter(
    ['route'],
    'Passthrough bodies over PASSTHROUGH_CACHE_MAX_BODY_BYTES, streamed uncached, by route prefix.',
  ),
} as const satisfies Record<string, MetricDecl>;

export type MetricName = keyof typeof METRICS;
