/** The passthrough lines of /status and the status page: per prefix, its backend, policy and answers by X-Cache. */
import type { PassCache } from './build.js';

export interface PassStatusLine {
  prefix: string;
  backend: string;
  /** `off`, `head`, a duration (`2000ms`) or `backend` (the backend's Cache-Control). */
  policy: string;
  /** Answers by X-Cache since start (HIT, MISS, STALE, BYPASS, ERROR), and bodies over the bound (TOO_BIG). */
  answers: Readonly<Record<string, number>>;
}

export function passthroughStatus(cache: PassCache): PassStatusLine[] {
  const counts = cache.metrics.counts();
  return cache.routes
    .filter((r) => !r.removed)
    .map((r) => ({
      prefix: r.prefix,
      backend: r.origin,
      policy: r.policy === undefined ? 'backend' : r.policy.kind === 'ttl' ? `${r.policy.ms}ms` : r.policy.kind,
      answers: { ...counts[r.prefix] },
    }));
}
