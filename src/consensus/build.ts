/** The quorum of a configuration: null when UPSTREAM_QUORUM is 1 (no vote, no cost). */
import type { Logger } from 'pino';
import type { UpstreamConfig } from '../config/types.js';
import type { SitOuts } from '../upstream/sit-out.js';
import type { UpstreamPool } from '../upstream/types.js';
import { DisputeLog } from './dispute-log.js';
import type { ConsensusMetrics } from './metrics.js';
import { Misbehaviour } from './misbehaviour.js';
import { Quorum } from './quorum.js';

/** Disputes kept for /status. */
const DISPUTE_LOG_SIZE = 50;

export interface QuorumDeps {
  pool: UpstreamPool;
  sitOuts: SitOuts;
  metrics: ConsensusMetrics;
  logger: Logger;
  clock: () => number;
}

export function buildQuorum(config: UpstreamConfig, d: QuorumDeps): Quorum | null {
  const quorum = config.quorum ?? 1;
  if (quorum <= 1) return null;
  const upstreams = d.pool.status().length;
  if (upstreams < quorum) {
    d.logger.warn(
      { quorum, upstreams },
      'UPSTREAM_QUORUM exceeds the upstreams configured: no answer will ever be kept final',
    );
  }
  return new Quorum({
    quorum,
    pool: d.pool,
    log: new DisputeLog(DISPUTE_LOG_SIZE),
    misbehaviour: new Misbehaviour({
      strikes: config.disputeStrikes ?? 3,
      windowMs: config.disputeWindowMs ?? 600_000,
      sitOuts: d.sitOuts,
      clock: d.clock,
    }),
    metrics: d.metrics,
    logger: d.logger,
    clock: d.clock,
  });
}
