/**
 * Default cache policies, one row per endpoint. Which column applies is decided
 * per answer by classify.ts from the content:
 *
 * - ttl:      an ordinary answer. For tx/detail: a confirmed tx in a block not
 *             final yet (then kept finalTtl once that block is final).
 * - final:    immutable content: block/detail with is_finality true,
 *             tx/list?block_height=<final block>, tx/detail confirmed in a final block.
 * - volatile: content still moving: block/detail with is_finality false,
 *             tx/list?block_height=<non-final block>, tx/detail pending (status 2).
 * - swr:      stale-while-revalidate window after expiry (about one ttl, at least 1 s).
 * - sie:      stale-if-error window after expiry (1 day).
 * - neg:      negative caching: an upstream not-found / client-error envelope
 *             (4xx, or 2xx with a non-zero code) is kept this long, so a burst of
 *             lookups of an unknown hash costs one upstream request per second.
 *             Upstream 5xx and garbage are never stored. 0 disables.
 * - head:     invalidateOnHead: stale as soon as the best head moves past the
 *             head the entry was fetched at.
 *
 * Every value is overridable per endpoint (CONFIG_FILE `policies:`).
 */
import type { EndpointName, EndpointPolicy } from './types.js';

const S = 1000;
const M = 60 * S;
const DAY = 24 * 60 * M;
const NEG = 1 * S;

type Row = [ttl: number, final: number, volatile: number, swr: number, sie: number, neg: number, head: boolean];

// prettier-ignore
const TABLE: Record<EndpointName, Row> = {
  //                          ttl       final     volatile  swr      sie   neg  head
  'block/max':             [  1 * S,    1 * S,    1 * S,    1 * S,   DAY,  NEG, false],
  'tx/list/pending':       [  1 * S,    1 * S,    1 * S,    1 * S,   DAY,  NEG, true ],
  'tx/list':               [  3 * S,    DAY,      5 * S,    3 * S,   DAY,  NEG, true ],
  'block/list':            [  3 * S,    3 * S,    3 * S,    3 * S,   DAY,  NEG, true ],
  'tx/listByAddress':      [  3 * S,    3 * S,    3 * S,    3 * S,   DAY,  NEG, true ],
  'tx/nrc20':              [  3 * S,    3 * S,    3 * S,    3 * S,   DAY,  NEG, true ],
  'token/tx/list':         [  3 * S,    3 * S,    3 * S,    3 * S,   DAY,  NEG, true ],
  'block/detail':          [  5 * S,    DAY,      5 * S,    5 * S,   DAY,  NEG, false],
  'tx/detail':             [  5 * S,    DAY,      1 * S,    1 * S,   DAY,  NEG, false],
  'token/list':            [ 10 * M,   10 * M,   10 * M,   10 * M,   DAY,  NEG, false],
  'token/detail':          [ 10 * M,   10 * M,   10 * M,   10 * M,   DAY,  NEG, false],
  'tx/count/history':      [  5 * M,    5 * M,    5 * M,    5 * M,   DAY,  NEG, false],
  'address/count/history': [  5 * M,    5 * M,    5 * M,    5 * M,   DAY,  NEG, false],
  'nax/history':           [  5 * M,    5 * M,    5 * M,    5 * M,   DAY,  NEG, false],
  'tx/count/today':        [ 10 * S,   10 * S,   10 * S,   10 * S,   DAY,  NEG, true ],
  'chain/summary':         [ 10 * S,   10 * S,   10 * S,   10 * S,   DAY,  NEG, true ],
  'address/info':          [  5 * S,    5 * S,    5 * S,    5 * S,   DAY,  NEG, true ],
  'holders':               [ 60 * S,   60 * S,   60 * S,   60 * S,   DAY,  NEG, false],
  'token/holders':         [ 60 * S,   60 * S,   60 * S,   60 * S,   DAY,  NEG, false],
  'contracts':             [ 60 * S,   60 * S,   60 * S,   60 * S,   DAY,  NEG, false],
  'nax/summary':           [ 60 * S,   60 * S,   60 * S,   60 * S,   DAY,  NEG, false],
  'nax/profits':           [ 60 * S,   60 * S,   60 * S,   60 * S,   DAY,  NEG, false],
};

function toPolicy([ttlMs, finalTtlMs, volatileTtlMs, swrMs, sieMs, negativeTtlMs, invalidateOnHead]: Row): EndpointPolicy {
  return { ttlMs, finalTtlMs, volatileTtlMs, swrMs, sieMs, negativeTtlMs, invalidateOnHead };
}

export const DEFAULT_POLICIES: Readonly<Record<EndpointName, Readonly<EndpointPolicy>>> = Object.freeze(
  Object.fromEntries(Object.entries(TABLE).map(([name, row]) => [name, Object.freeze(toPolicy(row))])) as Record<
    EndpointName,
    EndpointPolicy
  >,
);

export type PolicyOverrides = Partial<Record<EndpointName, Partial<EndpointPolicy>>>;

/** Defaults with per-endpoint overrides merged field by field (undefined fields keep the default). */
export function applyOverrides(
  defaults: Readonly<Record<EndpointName, Readonly<EndpointPolicy>>>,
  overrides: PolicyOverrides = {},
): Record<EndpointName, EndpointPolicy> {
  const out = {} as Record<EndpointName, EndpointPolicy>;
  for (const name of Object.keys(defaults) as EndpointName[]) {
    const merged: EndpointPolicy = { ...defaults[name] };
    const o = overrides[name];
    if (o !== undefined) {
      for (const [field, value] of Object.entries(o) as [keyof EndpointPolicy, EndpointPolicy[keyof EndpointPolicy] | undefined][]) {
        if (value !== undefined) (merged as unknown as Record<string, unknown>)[field] = value;
      }
    }
    out[name] = merged;
  }
  return out;
}
