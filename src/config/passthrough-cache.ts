/**
 * PASSTHROUGH_CACHE: `/prefix=POLICY` pairs saying how long a passthrough
 * prefix's answers are kept (`/explorer=head,/api=2s,/node=off`). POLICY is
 * `off` (never stored), a duration (`500ms`, `2s`, `1m`) or `head` (kept
 * until the proxy sees a new block, at most a minute). A prefix without a
 * policy follows the backend's own Cache-Control (RFC 9111). Which prefixes
 * exist is checked across settings (every one must be in PASSTHROUGH).
 */
import type { PassCachePolicy } from './types.js';

/** The longest duration policy. */
const PASS_POLICY_MAX_MS = 60 * 60_000;

const DURATION = /^(\d{1,7})(ms|s|m)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** A policy word, or null. */
function policyOf(raw: string): PassCachePolicy | null {
  const s = raw.trim().toLowerCase();
  if (s === 'off') return { kind: 'off' };
  if (s === 'head') return { kind: 'head' };
  const m = DURATION.exec(s);
  if (m === null) return null;
  const ms = Number(m[1]) * (UNIT_MS[m[2]!] ?? NaN);
  return ms >= 1 && ms <= PASS_POLICY_MAX_MS ? { kind: 'ttl', ms } : null;
}

export type CacheParsed =
  { ok: true; policies: Record<string, PassCachePolicy> } | { ok: false; expected: string; got: unknown };

const SHAPE = 'comma-separated /prefix=POLICY pairs (POLICY: off, head, or a duration such as 2s)';

function pairsOf(raw: unknown): Array<[string, unknown]> | null {
  const split = (s: string): [string, string] => {
    const eq = s.indexOf('=');
    return eq < 0 ? [s.trim(), ''] : [s.slice(0, eq).trim(), s.slice(eq + 1).trim()];
  };
  if (typeof raw === 'string')
    return raw
      .split(',')
      .filter((s) => s.trim() !== '')
      .map(split);
  if (Array.isArray(raw)) return raw.every((s) => typeof s === 'string') ? raw.map((s: string) => split(s)) : null;
  if (typeof raw === 'object' && raw !== null) return Object.entries(raw as Record<string, unknown>);
  return null;
}

/** Parses the setting (a comma string, a list of `prefix=policy` strings, or a map in CONFIG_FILE). */
export function parsePassthroughCache(raw: unknown): CacheParsed {
  const pairs = pairsOf(raw);
  if (pairs === null) return { ok: false, expected: SHAPE, got: raw };
  const policies: Record<string, PassCachePolicy> = {};
  for (const [prefix, value] of pairs) {
    if (!prefix.startsWith('/')) return { ok: false, expected: 'a path prefix such as /explorer', got: prefix };
    const policy = typeof value === 'string' || typeof value === 'number' ? policyOf(String(value)) : null;
    if (policy === null)
      return { ok: false, expected: `off, head or a duration from 1ms to 60m (2s, 500ms) for ${prefix}`, got: value };
    if (Object.hasOwn(policies, prefix)) return { ok: false, expected: `${prefix} given once`, got: raw };
    policies[prefix] = policy;
  }
  return { ok: true, policies };
}

/** PASSTHROUGH_IGNORE_PARAMS: parameter names (RFC 3986 unreserved characters), or null when one is not. */
export function parseParamNames(raw: unknown): string[] | null {
  const list =
    typeof raw === 'string'
      ? raw.split(',')
      : Array.isArray(raw) && raw.every((s) => typeof s === 'string')
        ? (raw as string[])
        : null;
  if (list === null) return null;
  const names = list.map((s) => s.trim()).filter((s) => s !== '');
  return names.every((n) => /^[A-Za-z0-9._~-]{1,64}$/.test(n)) ? [...new Set(names)] : null;
}
