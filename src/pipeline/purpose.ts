/**
 * The resolver as the block reader sees it (src/invalidation): its lookups are
 * the proxy's own, so their upstream requests carry PURPOSE_HEADER: `pending`
 * for the pending pool (with a block and by the poll between blocks), `block`
 * for the rest of a block's reads, `refresh` for refreshes of invalidated hot
 * entries and the token list re-read after a deployment.
 */
import type { CanonicalRequest } from '../catalogue/types.js';
import type { CacheEntry } from '../cache/types.js';
import { txListPending } from '../endpoints/tx-list-pending.js';
import type { Resolution, Resolver } from './resolver.js';

export interface BackgroundLookup {
  resolve(req: CanonicalRequest, client?: AbortSignal): Promise<Resolution>;
  revalidate(req: CanonicalRequest): Promise<CacheEntry>;
}

const isPool = (req: CanonicalRequest): boolean => req.endpoint.name === txListPending.path;

export function backgroundLookup(resolver: Resolver): BackgroundLookup {
  return {
    resolve: (req, client) => resolver.resolve(req, client, null, isPool(req) ? 'pending' : 'block'),
    // The pending poll reads the pool past the cache; other revalidations refresh invalidated hot entries.
    revalidate: (req) => resolver.revalidate(req, isPool(req) ? 'pending' : 'refresh'),
  };
}
