/**
 * Every configuration check. Messages read `NAME: expected X, got Y`, NAME
 * being the environment variable or the CONFIG_FILE key the value came from.
 * Values come as strings (environment) or as parsed YAML/JSON (file).
 */
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { ENDPOINT_NAMES, type EndpointName } from '../catalogue/types.js';
import { type EndpointPolicy } from '../endpoints/types.js';
import type { Config } from './types.js';
import type { Field, FieldKind } from './fields.js';
import { parsePassthroughRoutes } from './passthrough-routes.js';
import { parseParamNames, parsePassthroughCache } from './passthrough-cache.js';
import { NAMED_RANGES } from '../common/address-list.js';

/** A DNS host name: labels of letters, digits and hyphens, dot-separated, an optional trailing dot. */
const HOST_NAME =
  /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

/** A value for a message: quoted, at most 60 characters, no control characters. */
export function shown(raw: unknown): string {
  let s = typeof raw === 'string' ? JSON.stringify(raw) : (JSON.stringify(raw) ?? String(raw));
  if (s.length > 60) s = `${s.slice(0, 57)}...`;
  return s;
}

const fail = (label: string, expected: string, raw: unknown): Parsed => ({
  ok: false,
  error: `${label}: expected ${expected}, got ${shown(raw)}`,
});
const ok = (value: unknown): Parsed => ({ ok: true, value });

const BYTE_UNITS: Record<string, number> = {
  B: 1,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  KIB: 1024,
  MIB: 1024 ** 2,
  GIB: 1024 ** 3,
};

function bytesOf(raw: unknown): number | null {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? raw : null;
  if (typeof raw !== 'string') return null;
  const m = /^(\d{1,16})\s*([KMG]i?B|B)?$/i.exec(raw.trim());
  if (m === null) return null;
  const n = Number(m[1]) * (m[2] === undefined ? 1 : (BYTE_UNITS[m[2].toUpperCase()] ?? NaN));
  return Number.isSafeInteger(n) ? n : null;
}

function numberOf(raw: unknown, integer: boolean): number | null {
  if (typeof raw === 'number') return Number.isFinite(raw) && (!integer || Number.isSafeInteger(raw)) ? raw : null;
  if (typeof raw !== 'string') return null;
  if (!(integer ? /^\d{1,16}$/ : /^\d{1,16}(\.\d{1,16})?$/).test(raw.trim())) return null;
  return Number(raw.trim());
}

function listOf(raw: unknown): string[] | null {
  if (typeof raw === 'string')
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
  if (Array.isArray(raw) && raw.every((s) => typeof s === 'string')) return raw.map((s: string) => s.trim());
  return null;
}

/** http(s) base URL without credentials, query or fragment; trailing slash dropped. */
function baseUrl(raw: string): string | null {
  if (/[\s\u0000-\u001f\u007f]/.test(raw)) return null;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.hostname === '') return null;
  if (
    u.username !== '' ||
    u.password !== '' ||
    u.search !== '' ||
    u.hash !== '' ||
    raw.includes('?') ||
    raw.includes('#')
  )
    return null;
  return u.origin + u.pathname.replace(/\/+$/, '');
}

function isAddressOrCidr(s: string): boolean {
  if (Object.hasOwn(NAMED_RANGES, s)) return true;
  const slash = s.indexOf('/');
  const ip = slash < 0 ? s : s.slice(0, slash);
  const family = isIP(ip);
  if (family === 0) return false;
  if (slash < 0) return true;
  const bits = s.slice(slash + 1);
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

const REDIS_SCHEMES = ['redis://', 'rediss://', 'redis-cluster://', 'redis-sentinel://'];

function kindCheck(kind: FieldKind, raw: unknown, label: string): Parsed {
  switch (kind.type) {
    case 'int':
    case 'number': {
      const n = numberOf(raw, kind.type === 'int');
      const what = kind.type === 'int' ? 'an integer' : 'a number';
      return n !== null && n >= kind.min && n <= kind.max
        ? ok(n)
        : fail(label, `${what} from ${kind.min} to ${kind.max}`, raw);
    }
    case 'perCore': {
      if (typeof raw === 'string' && raw.trim().toLowerCase() === 'auto') return ok(availableParallelism());
      const n = numberOf(raw, true);
      return n !== null && n >= 1 && n <= kind.max
        ? ok(n)
        : fail(label, `an integer from 1 to ${kind.max}, or auto (one per core)`, raw);
    }
    case 'bytes': {
      const n = bytesOf(raw);
      const expected =
        `a size from ${kind.min} to ${kind.max} bytes ` + '(a byte count, or with a unit such as 64KiB, 256MiB, 1GB)';
      return n !== null && n >= kind.min && n <= kind.max ? ok(n) : fail(label, expected, raw);
    }
    case 'bool': {
      if (typeof raw === 'boolean') return ok(raw);
      const s = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
      if (['true', '1', 'yes', 'on'].includes(s)) return ok(true);
      if (['false', '0', 'no', 'off'].includes(s)) return ok(false);
      return fail(label, 'true or false', raw);
    }
    case 'enum':
      return typeof raw === 'string' && kind.values.includes(raw.trim())
        ? ok(raw.trim())
        : fail(label, `one of ${kind.values.join(', ')}`, raw);
    case 'host':
      return typeof raw === 'string' && /^[A-Za-z0-9.:_\-[\]%]{1,253}$/.test(raw.trim())
        ? ok(raw.trim())
        : fail(label, 'a host name or IP address', raw);
    case 'prefix':
      return typeof raw === 'string' && /^[\x21-\x7e]{1,64}$/.test(raw)
        ? ok(raw)
        : fail(label, '1 to 64 printable characters without spaces', raw);
    case 'url': {
      const u = typeof raw === 'string' ? baseUrl(raw.trim()) : null;
      return u !== null ? ok(u) : fail(label, 'an http:// or https:// URL without credentials, query or fragment', raw);
    }
    case 'urls': {
      const list = listOf(raw);
      const urls = list?.map(baseUrl);
      if (urls === undefined || urls.some((u) => u === null)) {
        const bad = list?.find((s) => baseUrl(s) === null) ?? raw;
        return fail(label, 'comma-separated http:// or https:// base URLs without credentials, query or fragment', bad);
      }
      return ok([...new Set(urls as string[])]);
    }
    case 'redisUrl': {
      if (raw === null || raw === '') return ok(null);
      const good =
        typeof raw === 'string' &&
        !/[\s\u0000-\u001f\u007f]/.test(raw) &&
        REDIS_SCHEMES.some((p) => raw.startsWith(p) && raw.length > p.length);
      return good ? ok(raw) : fail(label, `a URL starting with ${REDIS_SCHEMES.join(', ')}`, raw);
    }
    case 'addresses': {
      const list = listOf(raw);
      const bad = list === null ? raw : list.find((s) => !isAddressOrCidr(s));
      return bad === undefined
        ? ok(list)
        : fail(label, 'comma-separated IP addresses or CIDRs (or loopback, linklocal, uniquelocal)', bad);
    }
    case 'hostnames': {
      const list = listOf(raw);
      const bad = list === null ? raw : list.find((s) => !HOST_NAME.test(s));
      return bad === undefined
        ? ok(list!.map((s) => s.toLowerCase()))
        : fail(label, 'comma-separated host names (letters, digits, dots and hyphens)', bad);
    }
    case 'routes': {
      const r = parsePassthroughRoutes(raw ?? '', baseUrl);
      return r.ok ? ok(r.routes) : fail(label, r.expected, r.got);
    }
    case 'passCache': {
      const r = parsePassthroughCache(raw ?? '');
      return r.ok ? ok(r.policies) : fail(label, r.expected, r.got);
    }
    case 'paramNames': {
      const names = parseParamNames(raw ?? '');
      return names !== null ? ok(names) : fail(label, 'comma-separated query parameter names', raw);
    }
  }
}

export function checkField(field: Field, raw: unknown, label: string): Parsed {
  return kindCheck(field.kind, raw, label);
}

const POLICY_FIELDS: Record<keyof EndpointPolicy, 'ms' | 'bool'> = {
  ttlMs: 'ms',
  finalTtlMs: 'ms',
  volatileTtlMs: 'ms',
  swrMs: 'ms',
  sieMs: 'ms',
  negativeTtlMs: 'ms',
  invalidateOnHead: 'bool',
};
const MAX_POLICY_MS = 365 * 24 * 3_600_000;

/** The `policies` section of CONFIG_FILE: `{ "<endpoint>": { <EndpointPolicy field>: value } }`. */
export function checkPolicies(raw: unknown, label: string): { policies: Config['policies']; errors: string[] } {
  const policies: Config['policies'] = {};
  const errors: string[] = [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { policies, errors: [`${label}: expected a map of endpoint name to policy fields, got ${shown(raw)}`] };
  }
  for (const [name, body] of Object.entries(raw as Record<string, unknown>)) {
    const at = `${label}.${name}`;
    if (!(ENDPOINT_NAMES as readonly string[]).includes(name)) {
      errors.push(`${at}: expected an endpoint name (one of ${ENDPOINT_NAMES.join(', ')}), got ${shown(name)}`);
      continue;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      errors.push(`${at}: expected a map of policy fields, got ${shown(body)}`);
      continue;
    }
    const policy: Partial<EndpointPolicy> = {};
    for (const [field, value] of Object.entries(body as Record<string, unknown>)) {
      const type = (POLICY_FIELDS as Record<string, 'ms' | 'bool' | undefined>)[field];
      if (type === undefined)
        errors.push(`${at}.${field}: expected one of ${Object.keys(POLICY_FIELDS).join(', ')}, got ${shown(field)}`);
      else {
        const kind: FieldKind = type === 'bool' ? { type: 'bool' } : { type: 'int', min: 0, max: MAX_POLICY_MS };
        const r = kindCheck(kind, value, `${at}.${field}`);
        if (r.ok) (policy as Record<string, unknown>)[field] = r.value;
        else errors.push(r.error);
      }
    }
    policies[name as EndpointName] = policy;
  }
  return { policies, errors };
}

/** Checks across settings; `labelOf` names where a key's value came from. */
export function crossCheck(c: Config, labelOf: (key: string) => string): string[] {
  const errors: string[] = [];
  const atMost = (key: string, value: number, otherKey: string, other: number): void => {
    if (value > other) errors.push(`${labelOf(key)}: expected at most ${labelOf(otherKey)} (${other}), got ${value}`);
  };
  atMost(
    'upstream.connectTimeoutMs',
    c.upstream.connectTimeoutMs,
    'upstream.attemptTimeoutMs',
    c.upstream.attemptTimeoutMs,
  );
  atMost(
    'upstream.attemptTimeoutMs',
    c.upstream.attemptTimeoutMs,
    'upstream.totalDeadlineMs',
    c.upstream.totalDeadlineMs,
  );
  atMost('upstream.totalDeadlineMs', c.upstream.totalDeadlineMs, 'limits.requestTimeoutMs', c.limits.requestTimeoutMs);
  const prefixes = new Set(c.passthrough.routes.map((r) => r.prefix));
  for (const prefix of Object.keys(c.passthrough.cache))
    if (!prefixes.has(prefix))
      errors.push(`${labelOf('passthrough.cache')}: expected prefixes of PASSTHROUGH, got ${shown(prefix)}`);
  return errors;
}
