/**
 * Metrics of agreement, registered on the shared registry: votes by endpoint
 * and outcome (disputes are the `majority` and `disputed` outcomes), and
 * upstreams benched by reason (a refuted head, the minority of disputes).
 */
import type { Registry } from 'prom-client';
import { counter } from '../metrics/declare.js';
import type { SitOutReason } from '../upstream/sit-out.js';

type VoteOutcome = 'agreed' | 'majority' | 'disputed' | 'short';

export interface ConsensusMetrics {
  vote(endpoint: string, outcome: VoteOutcome): void;
  sitOut(upstream: string, reason: SitOutReason): void;
}

/** More distinct upstream names than this collapse into `other` (as in the shared metrics). */
const MAX_UPSTREAM_LABELS = 32;

export function registerConsensusMetrics(registry: Registry, upstreamNames: readonly string[]): ConsensusMetrics {
  const known = new Set(upstreamNames.slice(0, MAX_UPSTREAM_LABELS));
  const votes = counter(registry, 'quorum_votes_total');
  const sitOuts = counter(registry, 'upstream_sit_outs_total');
  return {
    vote: (endpoint, outcome) => votes.inc({ endpoint, outcome }),
    sitOut: (upstream, reason) => sitOuts.inc({ upstream: known.has(upstream) ? upstream : 'other', reason }),
  };
}
