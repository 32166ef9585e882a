/**
 * The resolver as the block reader sees it (src/invalidation): its lookups are
 * the proxy's own, so their upstream requests carry PURPOSE_HEADER: `pending`
 * for the pending pool, `block` for the rest of a block's reads, `refresh`
 * for refreshes of invalidated hot entries.
 */
import type { CanonicalRequest } from '../catalogue/types.js';
import type { CacheEntry } from '../cache/types.js';
import { txListPending } from '../endpoints/tx-list-pending.js';
import type { Resolution, Resolver } from './resolver.js';

export interface BackgroundLookup {
  resolve(req: CanonicalRequest, client?: AbortSignal): Promise<Resolution>;
  revalidate(req: CanonicalRequest): Promise<CacheEntry>;
}

export function backgroundLookup(resolver: Resolver): BackgroundLookup {
  return {
    resolve: (req, client) => resolver.resolve(req, client, null, req.endpoint.name === txListPending.path ? 'pending' : 'block'),
    revalidate: (req) => resolver.revalidate(req, 'refresh'),
  };
}
