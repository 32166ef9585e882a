/**
 * A reload's PASSTHROUGH_CACHE and PASSTHROUGH_IGNORE_PARAMS, written into
 * the compiled routes (their prefixes and backends are fixed at start). The
 * cache path, the fetcher, the purge keys and the pre-router lookup read a
 * route's policy and ignored parameters at each request, so the next request
 * follows them; an entry already stored keeps its window (one keyed with
 * parameters no longer ignored is no longer looked up, and expires).
 */
import type { PassthroughConfig } from '../config/types.js';
import type { PassRoute } from './request.js';

const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean =>
  a.size === b.size && [...a].every((x) => b.has(x));

/** True when a route's policy or ignored parameters changed. */
export function reconfigureRoutes(routes: readonly PassRoute[], p: PassthroughConfig): boolean {
  let changed = false;
  for (const r of routes) {
    const policy = p.cache[r.prefix];
    const ignore = new Set(p.ignoreParams);
    if (JSON.stringify(policy) === JSON.stringify(r.policy) && sameSet(ignore, r.ignore)) continue;
    r.policy = policy;
    r.ignore = ignore;
    changed = true;
  }
  return changed;
}
