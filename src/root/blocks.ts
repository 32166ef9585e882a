/**
 * The block builder: precise invalidation starts reading blocks (through the
 * fetch stage, around the client cache), then the refresh engine follows the
 * heads and touched sets, and a follower installs the leader's refreshed
 * entries.
 */
import { installShared } from '../fleet/shared-entries.js';
import { storeFor } from '../invalidation/own-reads.js';
import { buildRefresh } from '../refresh/build.js';
import type { RefreshEngine } from '../refresh/engine.js';
import type { Basics } from './basics.js';
import type { CacheStages } from './cache.js';
import type { ChainStages } from './chain.js';
import type { FleetStages } from './fleet.js';
import type { PipelineStages } from './pipeline.js';
import type { UpstreamStages } from './upstreams.js';

export function buildBlockWork(
  { config, logger, clock, prom }: Basics,
  { catalogue, tracker, touched }: ChainStages,
  { memory, invalidation, hot }: CacheStages,
  { fleet, duty, link }: FleetStages,
  { pool }: UpstreamStages,
  { fetcher, resolver }: PipelineStages,
): { refresh: RefreshEngine } {
  invalidation?.start({
    // The block reader reads around the client cache (its own fetches), and stores what it verified.
    reads: {
      fetch: (req, signal, purpose) => fetcher.fetch(req, signal, purpose),
      adopt: (req, res, head) => fetcher.adopt(req, res, head),
      pool,
      chain: tracker,
      store: storeFor(memory, fleet?.store ?? null, logger),
    },
    catalogue,
    limits: config.limits,
    heads: tracker,
    fleet: link,
    duty,
    logger,
  });
  // After the tag clock and the block reader: a refreshed entry is fetched once its block is known.
  const refresh = buildRefresh({
    board: hot,
    maxKeys: config.refreshAhead.maxKeys,
    registry: prom.registry,
    heads: tracker,
    touched,
    resolver,
    acting: duty?.acting ?? null,
    touchedCounted: invalidation?.metrics.refreshed ?? null,
    // The leader's refreshed entries reach the followers with the round (src/fleet/shared-entries.ts).
    onRefreshed: duty === null ? null : (entries) => duty.shareEntries(entries),
    logger,
  });
  duty?.onEntries((encoded) => void installShared(encoded, resolver.offer, clock));
  return { refresh };
}
