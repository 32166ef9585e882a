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

/** Null when no prefix is served (PASSTHROUGH unset, or every prefix removed by a reload). */
export function passthroughStatus(cache: PassCache): PassStatusLine[] | null {
  const counts = cache.metrics.counts();
  if (cache.table.live.length === 0) return null;
  return cache.table.live.map((r) => ({
    prefix: r.prefix,
    backend: r.origin,
    policy: r.policy === undefined ? 'backend' : r.policy.kind === 'ttl' ? `${r.policy.ms}ms` : r.policy.kind,
    answers: { ...counts[r.prefix] },
  }));
}
