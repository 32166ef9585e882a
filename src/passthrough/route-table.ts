/**
 * The passthrough prefixes as they are now: the table the one dispatcher
 * (register.ts), the cache path, the purge keys, the pre-router lookup and
 * the status page read at each use. A reload's PASSTHROUGH,
 * PASSTHROUGH_CACHE and PASSTHROUGH_IGNORE_PARAMS are written into it
 * (`apply`): a prefix may be added, removed, re-pointed to another backend
 * or target path. A prefix keeps its one route object for the life of the
 * process (removed and added again, it is the same object), so what is
 * kept per prefix (its metrics label, the cache path's memory of big keys)
 * stays bounded by the prefixes ever configured; an entry already stored
 * keeps its window (one keyed with parameters no longer ignored is no longer
 * looked up, and expires).
 */
import type { PassthroughConfig } from '../config/types.js';
import { compileRoute, type PassRoute } from './request.js';

const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean =>
  a.size === b.size && [...a].every((x) => b.has(x));

/** Whether `url` (path and query as received) lies under `prefix` (`/api` covers `/api`, `/api/…`, `/api?…`). */
function underPrefix(url: string, prefix: string): boolean {
  if (!url.startsWith(prefix)) return false;
  const next = url.charCodeAt(prefix.length);
  return Number.isNaN(next) || next === 0x2f || next === 0x3f;
}

export interface TableChange {
  /** Whether a route's backend, target path, policy, ignored parameters or presence changed. */
  changed: boolean;
  /** Prefixes served now that were not before the change. */
  added: string[];
}

export class PassTable {
  /** Every prefix configured since start, by prefix. */
  readonly #all = new Map<string, PassRoute>();
  #live: readonly PassRoute[] = [];

  constructor(p: PassthroughConfig) {
    this.apply(p);
  }

  /** The routes served now (prefixes never overlap: at most one holds a URL). */
  get live(): readonly PassRoute[] {
    return this.#live;
  }

  /** The route serving `url` (path and query as received; a prefix is matched as written), or null. */
  match(url: string): PassRoute | null {
    for (const r of this.#live) if (underPrefix(url, r.prefix)) return r;
    return null;
  }

  /** Writes `p` into the table; existing routes are changed in place (a request under way sees the change). */
  apply(p: PassthroughConfig): TableChange {
    const out: TableChange = { changed: false, added: [] };
    const wasLive = new Set(this.#live.map((r) => r.prefix));
    const live: PassRoute[] = [];
    for (const declared of p.routes) {
      const next = compileRoute(declared, p.cache[declared.prefix], p.ignoreParams);
      const r = this.#all.get(declared.prefix);
      live.push(r ?? next);
      if (!wasLive.has(declared.prefix)) {
        out.added.push(declared.prefix);
        out.changed = true;
      }
      if (r === undefined) {
        this.#all.set(next.prefix, next);
        continue;
      }
      const same =
        JSON.stringify(next.policy) === JSON.stringify(r.policy) &&
        sameSet(next.ignore, r.ignore) &&
        next.origin === r.origin &&
        next.rewritePrefix === r.rewritePrefix;
      if (same) continue;
      Object.assign(r, next);
      out.changed = true;
    }
    if (live.length !== wasLive.size + out.added.length) out.changed = true;
    this.#live = live;
    return out;
  }
}
