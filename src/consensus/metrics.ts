/**
 * Metrics of agreement, registered on the shared registry: votes by endpoint
 * and outcome (disputes are the `majority` and `disputed` outcomes), and
 * upstreams benched by reason (a refuted head, the minority of disputes).
 */
import { Counter, type Registry } from 'prom-client';
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
  const votes = new Counter({
    name: 'chainproxy_quorum_votes_total',
    help:
      'Quorum votes before a final answer is stored, by outcome: agreed, majority (a dispute the ' +
      'majority settled), disputed (no majority: served short-lived), short (too few upstreams answered).',
    labelNames: ['endpoint', 'outcome'] as const,
    registers: [registry],
  });
  const sitOuts = new Counter({
    name: 'chainproxy_upstream_sit_outs_total',
    help:
      'Times an upstream was benched: reason head (a head the other ' +
      'upstreams refuted) or disputes (the minority of too many disputes).',
    labelNames: ['upstream', 'reason'] as const,
    registers: [registry],
  });
  return {
    vote: (endpoint, outcome) => votes.inc({ endpoint, outcome }),
    sitOut: (upstream, reason) => sitOuts.inc({ upstream: known.has(upstream) ? upstream : 'other', reason }),
  };
}
