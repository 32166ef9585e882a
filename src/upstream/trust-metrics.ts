/**
 * Metrics of bounded trust and load shedding, registered on the shared
 * registry: requests shed because an upstream's queue was full, and the times
 * the tracker followed every upstream down to a lower head.
 */
import { Counter, type Registry } from 'prom-client';

export interface TrustMetrics {
  shed(upstream: string): void;
  rebase(): void;
}

/** More distinct upstream names than this collapse into `other` (as in the shared metrics). */
const MAX_UPSTREAM_LABELS = 32;

export function registerTrustMetrics(registry: Registry, upstreamNames: readonly string[]): TrustMetrics {
  const known = new Set(upstreamNames.slice(0, MAX_UPSTREAM_LABELS));
  const shed = new Counter({
    name: 'chainproxy_upstream_shed_total',
    help: "Upstream requests refused at once (503, Retry-After) because the upstream's queue was full.",
    labelNames: ['upstream'] as const,
    registers: [registry],
  });
  const rebases = new Counter({
    name: 'chainproxy_chain_head_rebases_total',
    help: 'Times every upstream reported a lower head for several probe intervals and the proxy followed them down.',
    registers: [registry],
  });
  return {
    shed: (upstream) => shed.inc({ upstream: known.has(upstream) ? upstream : 'other' }),
    rebase: () => rebases.inc(),
  };
}
