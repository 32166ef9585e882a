/**
 * Cache policies: each endpoint module declares its defaults (src/endpoints,
 * rows built by `policy()`/`flat()` in kit.ts). Which column applies is decided
 * per answer by the module's rule (`decide`) from the content:
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
import { ENDPOINTS } from '../endpoints/index.js';
import type { EndpointPolicy } from '../endpoints/types.js';
import type { EndpointName } from './types.js';

/** The modules' default policies (src/endpoints), by endpoint name. */
export const DEFAULT_POLICIES: Readonly<Record<EndpointName, Readonly<EndpointPolicy>>> = Object.freeze(
  Object.fromEntries(ENDPOINTS.map((m) => [m.path, m.policy])) as Record<EndpointName, EndpointPolicy>,
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
      for (const [field, value] of Object.entries(o) as [
        keyof EndpointPolicy,
        EndpointPolicy[keyof EndpointPolicy] | undefined,
      ][]) {
        if (value !== undefined) (merged as unknown as Record<string, unknown>)[field] = value;
      }
    }
    out[name] = merged;
  }
  return out;
}
