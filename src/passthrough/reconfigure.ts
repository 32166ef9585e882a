/**
 * A reload's PASSTHROUGH_CACHE, PASSTHROUGH_IGNORE_PARAMS and PASSTHROUGH,
 * written into the compiled routes: a prefix may be re-pointed to another
 * backend origin or removed (its target path and a new prefix are fixed at
 * start). The cache path, the fetcher, the streamed way, the purge keys and
 * the pre-router lookup read a route's backend, policy and ignored parameters
 * at each request, so the next request follows them; an entry already stored
 * keeps its window (one keyed with parameters no longer ignored is no longer
 * looked up, and expires).
 */
import type { PassthroughConfig } from '../config/types.js';
import { compileRoute, type PassRoute } from './request.js';

const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean =>
  a.size === b.size && [...a].every((x) => b.has(x));

/** True when a route's backend, policy, ignored parameters or presence changed. */
export function reconfigureRoutes(routes: readonly PassRoute[], p: PassthroughConfig): boolean {
  let changed = false;
  for (const r of routes) {
    const policy = p.cache[r.prefix];
    const ignore = new Set(p.ignoreParams);
    const declared = p.routes.find((d) => d.prefix === r.prefix);
    const origin = declared === undefined ? r.origin : compileRoute(declared, policy, p.ignoreParams).origin;
    const removed = declared === undefined;
    const same = JSON.stringify(policy) === JSON.stringify(r.policy) && sameSet(ignore, r.ignore);
    if (same && origin === r.origin && removed === r.removed) continue;
    r.policy = policy;
    r.ignore = ignore;
    r.origin = origin;
    r.removed = removed;
    changed = true;
  }
  return changed;
}
