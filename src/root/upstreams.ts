/**
 * The upstreams builder: head detection (probe cadence), the upstream pool
 * and the quorum. A probe's head goes out as events (`heads`): the head entry,
 * built later over the fetch stage that reads this pool, subscribes to them.
 * Then the gauges read at scrape time: the tiers, the upstreams, the chain.
 */
import { buildQuorum } from '../consensus/build.js';
import type { Quorum } from '../consensus/quorum.js';
import { Topic } from '../common/topic.js';
import { registerHeadMetrics } from '../upstream/head-metrics.js';
import { HeadWatch } from '../upstream/head-watch.js';
import { createUpstreamPool, type ManagedUpstreamPool } from '../upstream/pool.js';
import { registerTrustMetrics } from '../upstream/trust-metrics.js';
import type { UpstreamResponse } from '../upstream/types.js';
import type { Basics } from './basics.js';
import type { CacheStages } from './cache.js';
import type { ChainStages } from './chain.js';
import type { FleetStages } from './fleet.js';

/** What the probes tell of the head (src/upstream/prober.ts says when each is told). */
export interface ProbeHeads {
  /** A new head about to be believed, with the answer showing it. */
  adopt: Topic<[res: UpstreamResponse, height: number]>;
  /** The believed head shown again. */
  confirm: Topic<[height: number]>;
  /** A follower's copy of the leader's answer showing the highest head. */
  install: Topic<[res: UpstreamResponse, height: number]>;
}

export interface UpstreamStages {
  /** New heads: probe cadence, probes per block, detection delay. */
  headWatch: HeadWatch;
  pool: ManagedUpstreamPool;
  /** null when UPSTREAM_QUORUM is 1 (no vote). */
  quorum: Quorum | null;
  heads: ProbeHeads;
}

export function buildUpstreams(
  { config, logger, clock, prom }: Basics,
  { tracker, sitOuts, upstreamNames, consensusMetrics }: ChainStages,
  { memory }: CacheStages,
  { fleet, duty }: FleetStages,
): UpstreamStages {
  const trust = registerTrustMetrics(prom.registry, upstreamNames);
  const headMetrics = registerHeadMetrics(prom.registry);
  const headWatch = new HeadWatch({
    tracker,
    settings: { sparseMs: config.upstream.probeIntervalMs, denseMs: config.upstream.probeDenseMs ?? 100 },
    onDelay: headMetrics.onDelay,
  });
  headMetrics.watch(headWatch);
  const heads: ProbeHeads = { adopt: new Topic(), confirm: new Topic(), install: new Topic() };
  const pool = createUpstreamPool({
    urls: config.upstreamUrls,
    config: config.upstream,
    tracker,
    metrics: prom.metrics,
    logger,
    onShed: trust.shed,
    onRebase: trust.rebase,
    sitOuts,
    watch: headWatch,
    adopt: heads.adopt.emit,
    confirm: heads.confirm.emit,
    install: heads.install.emit,
    duty,
  });
  const quorum = buildQuorum(config.upstream, { pool, sitOuts, metrics: consensusMetrics, logger, clock });
  prom.pull({
    tiers: () => [
      { tier: 'memory', entries: memory.entries, bytes: memory.bytes, maxBytes: config.cacheMaxBytes },
      ...(fleet ? [fleet.tierStats()] : []),
    ],
    upstreams: () => pool.status(),
    chain: tracker,
    redisHealthy: () => (fleet ? fleet.healthy() : null),
  });
  return { headWatch, pool, quorum, heads };
}
