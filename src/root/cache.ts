/**
 * The cache builder: the board of hot keys, precise invalidation (its tag
 * clock and rule; it reads blocks once started) and the memory tier, which
 * gives the tag map its share of CACHE_MAX_BYTES.
 */
import { MemoryStore } from '../cache/memory-store.js';
import { buildInvalidation, tagBudget, type Invalidation } from '../invalidation/build.js';
import { HotBoard } from '../refresh/board.js';
import type { Basics } from './basics.js';
import type { ChainStages } from './chain.js';

export interface CacheStages {
  /** Fed by lookups (the resolver's) and by the tag clock, unless refresh-ahead is off (`scored` false). */
  hot: HotBoard;
  scored: boolean;
  /** Precise invalidation; null: INVALIDATION_MODE=head. */
  invalidation: Invalidation | null;
  memory: MemoryStore;
}

export function buildCache({ config, clock, prom }: Basics, chain: ChainStages): CacheStages {
  const hot = new HotBoard();
  const scored = config.refreshAhead.maxKeys > 0;
  const invalidation = buildInvalidation(
    config,
    chain.touched,
    prom.registry,
    clock,
    chain.tracker,
    scored ? hot.invalidated : null,
  );
  const memoryBytes =
    invalidation === null ? config.cacheMaxBytes : config.cacheMaxBytes - tagBudget(config.cacheMaxBytes);
  const memory = new MemoryStore({
    maxBytes: memoryBytes,
    clock,
    onEvict: () => prom.metrics.cacheEviction('memory'),
  });
  return { hot, scored, invalidation, memory };
}
