/**
 * The one path registry. Per path: the methods served (OPTIONS aside, which
 * is always the CORS preflight), whether it sits behind the operator gate
 * (non-operators get the unknown-path answer for every method), and whether
 * the rate limiter leaves it alone. The namespaces the proxy keeps whole are
 * reserved from passthrough with every path listed here.
 *
 * A leaf module (no Fastify, no routes): the settings' check of PASSTHROUGH
 * reads it before any route exists.
 */
import type { FastifyRequest } from 'fastify';
import { ENDPOINT_NAMES } from './types.js';

export const HEALTHZ_PATH = '/healthz';
export const READYZ_PATH = '/readyz';
export const STATUS_PATH = '/status';
export const METRICS_PATH = '/metrics';
export const OPENAPI_PATH = '/openapi.json';
export const BATCH_PATH = '/batch';
export const PURGE_PATH = '/purge';
export const PAGES_PREFIX = '/pages/';
/**
 * Served by src/dashboard/routes.ts (DASHBOARD_PATHS) and src/stream/route.ts
 * (STREAM_PATH) and src/stream/activity/index.ts (ACTIVITY_PATH).
 */
const DASHBOARD = ['/dashboard', '/dashboard/data.json', '/dashboard/history.json'] as const;
const STREAM = '/stream/heads';
const ACTIVITY = '/stream/activity';

/** Which operator list a path asks for: ADMIN_ALLOW (admin) or PURGE_ALLOW (purge). */
export type OperatorGate = 'admin' | 'purge';

export interface PathRule {
  /** Methods served, OPTIONS aside, in the order `Allow` names them. */
  methods: readonly string[];
  /** Behind an operator gate (src/http/admin-gate.ts); null: public. */
  operator: OperatorGate | null;
  /** Never charged by the rate limiter (for operator paths: when an operator asks). */
  unlimited: boolean;
}

const GET_HEAD: readonly string[] = ['GET', 'HEAD'];
const API: PathRule = { methods: GET_HEAD, operator: null, unlimited: false };
const PROBE: PathRule = { methods: GET_HEAD, operator: null, unlimited: true };
const OPERATOR: PathRule = { methods: GET_HEAD, operator: 'admin', unlimited: true };

const FIXED: ReadonlyArray<readonly [string, PathRule]> = [
  [HEALTHZ_PATH, PROBE],
  [READYZ_PATH, PROBE],
  [STATUS_PATH, OPERATOR],
  [METRICS_PATH, OPERATOR],
  [PURGE_PATH, { methods: ['POST'], operator: 'purge', unlimited: true }],
  ...DASHBOARD.map((p) => [p, OPERATOR] as const),
  [OPENAPI_PATH, API],
  [BATCH_PATH, { methods: ['POST'], operator: null, unlimited: false }],
  [STREAM, { methods: ['GET'], operator: null, unlimited: false }],
  [ACTIVITY, { methods: ['GET'], operator: null, unlimited: false }],
];

/** Namespaces kept whole: no passthrough prefix may equal, contain or sit under one. */
const NAMESPACES: readonly string[] = ['/pages', '/stream', '/dashboard'];

/** Every path and namespace a passthrough prefix must stay clear of. */
export const RESERVED_PATHS: readonly string[] = [
  ...ENDPOINT_NAMES.map((n) => `/${n}`),
  ...NAMESPACES,
  ...FIXED.map(([p]) => p),
];

/** The rule of each path this proxy serves, with its preflight and 405 answers precomputed. */
export class PathRegistry {
  readonly #rules = new Map<string, PathRule>();

  /** `endpoints`: catalogue names (`block/max`); `pages`: page names served under /pages/. */
  constructor(endpoints: readonly string[], pages: readonly string[]) {
    for (const [path, rule] of FIXED) this.#rules.set(path, rule);
    for (const name of endpoints) this.#rules.set(`/${name}`, API);
    this.setPages(pages);
  }

  /** The pages served under /pages/ from now on (a reload). */
  setPages(pages: readonly string[]): void {
    for (const path of [...this.#rules.keys()]) if (path.startsWith(PAGES_PREFIX)) this.#rules.delete(path);
    for (const name of pages) this.#rules.set(`${PAGES_PREFIX}${name}`, API);
  }

  /** The rule of an exact path (no query), or undefined for a path the proxy does not serve. */
  rule(path: string): PathRule | undefined {
    return this.#rules.get(path);
  }

  paths(): IterableIterator<string> {
    return this.#rules.keys();
  }
}

type RequestTest = (request: FastifyRequest) => boolean;

/** Whether a request passes an operator gate (src/http/admin-gate.ts: `OperatorAccess`). */
export interface OperatorTest {
  allows(gate: OperatorGate, request: FastifyRequest): boolean;
}

/**
 * Requests the rate limiter leaves alone: unlimited paths, operator paths only
 * when an operator asks (anyone else is charged as for the unknown path they see).
 */
export function rateLimitExempt(registry: PathRegistry, access: OperatorTest): RequestTest {
  return (request) => {
    const url = request.raw.url ?? '/';
    const q = url.indexOf('?');
    const rule = registry.rule(q < 0 ? url : url.slice(0, q));
    return rule !== undefined && rule.unlimited && (rule.operator === null || access.allows(rule.operator, request));
  };
}

/** `Allow` (and the preflight's allowed methods) of a rule. */
export function allowOf(rule: PathRule): string {
  return [...rule.methods, 'OPTIONS'].join(', ');
}

/** The 405 message of a rule; undefined for the catalogue's default (GET or HEAD). */
export function methodRefusalOf(rule: PathRule): string | undefined {
  return rule.methods === GET_HEAD ? undefined : `method not allowed; use ${rule.methods.join(' or ')}`;
}

/** Request headers every route accepts from a browser (one CORS policy). */
export const ALLOWED_REQUEST_HEADERS = 'If-None-Match, Accept-Encoding, Content-Type, Last-Event-ID, X-API-Key';
