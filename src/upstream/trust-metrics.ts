/**
 * Metrics of bounded trust and load shedding, registered on the shared
 * registry: requests shed because an upstream's queue was full, and the times
 * the tracker followed every upstream down to a lower head.
 */
import type { Registry } from 'prom-client';
import { counter } from '../metrics/declare.js';

export interface TrustMetrics {
  shed(upstream: string): void;
  rebase(): void;
}

/** More distinct upstream names than this collapse into `other` (as in the shared metrics). */
const MAX_UPSTREAM_LABELS = 32;

export function registerTrustMetrics(registry: Registry, upstreamNames: readonly string[]): TrustMetrics {
  const known = new Set(upstreamNames.slice(0, MAX_UPSTREAM_LABELS));
  const shed = counter(registry, 'upstream_shed_total');
  const rebases = counter(registry, 'chain_head_rebases_total');
  return {
    shed: (upstream) => shed.inc({ upstream: known.has(upstream) ? upstream : 'other' }),
    rebase: () => rebases.inc(),
  };
}
