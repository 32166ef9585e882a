/**
 * PASSTHROUGH: `prefix=url` pairs of legacy paths forwarded as they are
 * (`/api=http://legacy:8080,/explorer=http://legacy:8080`). Checked once at
 * start: well-formed prefixes and URLs, no overlap with the proxy's own paths
 * or with each other.
 */
import { RESERVED_PATHS } from '../catalogue/paths.js';
import type { PassthroughRoute } from './types.js';

/** One or more `/segment`s of unreserved URL characters; no `.`/`..` segment, no trailing slash. */
const PREFIX = /^(\/[A-Za-z0-9._~-]+)+$/;

function isWellFormedPrefix(prefix: string): boolean {
  return PREFIX.test(prefix) && !prefix.split('/').some((s) => s === '.' || s === '..');
}

/** True when one path is the other or lies under it (`/api` and `/api/v2`). */
function pathsOverlap(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

export type RoutesParsed = { ok: true; routes: PassthroughRoute[] } | { ok: false; expected: string; got: unknown };

const SHAPE = 'comma-separated /prefix=http(s)://host[:port][/path] pairs';

function pairsOf(raw: unknown): Array<[string, unknown]> | null {
  const split = (s: string): [string, string] => {
    const eq = s.indexOf('=');
    return eq < 0 ? [s, ''] : [s.slice(0, eq).trim(), s.slice(eq + 1).trim()];
  };
  if (typeof raw === 'string')
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map(split);
  if (Array.isArray(raw))
    return raw.every((s) => typeof s === 'string') ? raw.map((s: string) => split(s.trim())) : null;
  if (typeof raw === 'object' && raw !== null) return Object.entries(raw as Record<string, unknown>);
  return null;
}

/**
 * Parses the setting (a comma string, a list of `prefix=url` strings, or a
 * map of prefix to URL in CONFIG_FILE). `baseUrl` normalizes a target or
 * returns null when it is not an acceptable http(s) base URL.
 */
export function parsePassthroughRoutes(raw: unknown, baseUrl: (s: string) => string | null): RoutesParsed {
  const pairs = pairsOf(raw);
  if (pairs === null) return { ok: false, expected: SHAPE, got: raw };
  const routes: PassthroughRoute[] = [];
  for (const [prefix, target] of pairs) {
    if (!isWellFormedPrefix(prefix)) {
      return {
        ok: false,
        expected: 'a path prefix such as /api (letters, digits, . _ ~ - between slashes, no trailing slash)',
        got: prefix,
      };
    }
    const url = typeof target === 'string' ? baseUrl(target) : null;
    if (url === null)
      return {
        ok: false,
        expected: `an http:// or https:// URL without credentials, query or fragment for ${prefix}`,
        got: target,
      };
    // A prefix may not equal a reserved path, contain one (`/tx` would swallow `/tx/list`) or sit under one.
    const reserved = RESERVED_PATHS.find((r) => pathsOverlap(prefix, r));
    if (reserved !== undefined)
      return { ok: false, expected: `a prefix clear of the proxy's own path ${reserved}`, got: prefix };
    const other = routes.find((r) => pathsOverlap(prefix, r.prefix));
    if (other !== undefined)
      return { ok: false, expected: `a prefix clear of the other passthrough prefix ${other.prefix}`, got: prefix };
    routes.push({ prefix, target: url });
  }
  return { ok: true, routes };
}
