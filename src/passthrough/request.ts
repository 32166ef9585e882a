/**
 * A passthrough request as the cache path sees it: its route, its cache key,
 * the path it is forwarded with, and the forwarding headers of the request
 * that leads the fetch (who the backend sees asking).
 */
import type { PassCachePolicy, PassthroughRoute } from '../config/types.js';
import type { Lookup } from '../pipeline/resolver.js';
import { passKey, splitUrl, withoutParams } from './cache-key.js';

/** A configured prefix, compiled once. */
export interface PassRoute {
  prefix: string;
  /** The backend's origin (`http://host:port`). */
  origin: string;
  /** What replaces the prefix on the backend (the prefix itself when the target has no path). */
  rewritePrefix: string;
  /** PASSTHROUGH_CACHE's policy (undefined: the backend's Cache-Control decides). */
  policy: PassCachePolicy | undefined;
  /** PASSTHROUGH_IGNORE_PARAMS. */
  ignore: ReadonlySet<string>;
}

/** The routes served now (route-table.ts), read at each use. */
export interface LiveRoutes {
  readonly live: readonly PassRoute[];
}

export interface PassRequest extends Lookup {
  endpoint: { name: string; policy: { finalTtlMs: number } };
  route: PassRoute;
  /** Path and query sent to the backend. */
  path: string;
  /** Forwarding headers of the leading request. */
  forward: Readonly<Record<string, string>>;
}

/** Upstream origin and the path that replaces the prefix (nginx proxy_pass rules). */
export function compileRoute(
  route: PassthroughRoute,
  policy: PassCachePolicy | undefined,
  ignore: readonly string[],
): PassRoute {
  const u = new URL(route.target);
  const path = u.pathname.replace(/\/+$/, '');
  return {
    prefix: route.prefix,
    origin: u.origin,
    rewritePrefix: path === '' ? route.prefix : path,
    policy,
    ignore: new Set(ignore),
  };
}

const NO_FINAL = { finalTtlMs: 0 };

/** The request for `url` (path and query as received) on `route`. */
export function passRequest(route: PassRoute, url: string, forward: Readonly<Record<string, string>>): PassRequest {
  const [path, query] = splitUrl(url);
  const kept = withoutParams(query, route.ignore);
  const rest = path.slice(route.prefix.length);
  return {
    key: passKey(path, kept),
    endpoint: { name: route.prefix, policy: NO_FINAL },
    route,
    path: passKey(`${route.rewritePrefix}${rest}`, kept),
    forward,
  };
}

/** The cache key a purge's `key=` names when its path is under one of the routes served now (else null). */
export function passKeyOf(routes: LiveRoutes): (path: string, query: string) => string | null {
  return (path, query) => {
    const route = routes.live.find((r) => path === r.prefix || path.startsWith(`${r.prefix}/`));
    return route === undefined ? null : passKey(path, withoutParams(query, route.ignore));
  };
}

/**
 * The pre-router lookup of a passthrough URL: the URL without its ignored
 * parameters (its cache key) when it lies under one of the routes; else null.
 */
export function passUrlKey(routes: LiveRoutes): (url: string) => string | null {
  return (url) => {
    // The routes and their parameters as they are now (a reload may change them).
    for (const r of routes.live) {
      if (
        r.ignore.size === 0 ||
        !url.startsWith(r.prefix) ||
        (url.length > r.prefix.length && !'/?'.includes(url[r.prefix.length]!))
      )
        continue;
      const [path, query] = splitUrl(url);
      return passKey(path, withoutParams(query, r.ignore));
    }
    return null;
  };
}
