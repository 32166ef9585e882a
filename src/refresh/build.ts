/**
 * The refresh engine, assembled once by the composition root and fed by its
 * two triggers: the tracker's heads (a rebase asks again for the real head)
 * and the touched sets (subscribed after the tag clock, so a refreshed entry
 * is fetched once its block is known).
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { CanonicalRequest } from '../catalogue/types.js';
import type { CacheEntry } from '../cache/types.js';
import type { TouchedSets } from '../chain/touched.js';
import type { HotBoard } from './board.js';
import { RefreshEngine } from './engine.js';
import { registerRefreshMetrics } from './metrics.js';

/** The tracker's events the engine follows. */
export interface HeadEvents {
  on(event: 'head', listener: (height: number) => void): unknown;
  on(event: 'rebase', listener: (height: number, from: number) => void): unknown;
}

export function buildRefresh(d: {
  board: HotBoard;
  maxKeys: number;
  registry: Registry;
  heads: HeadEvents;
  touched: TouchedSets;
  resolver: { renew(req: CanonicalRequest): Promise<CacheEntry | null>; current(req: CanonicalRequest): boolean };
  acting: (() => boolean) | null;
  /** Where refreshes of the touched trigger are counted (precise invalidation's metric); null: not counted. */
  touchedCounted: ((outcome: 'ok' | 'error', n: number) => void) | null;
  onRefreshed: ((entries: CacheEntry[]) => void) | null;
  logger: Logger;
}): RefreshEngine {
  const counted = d.touchedCounted;
  const engine = new RefreshEngine({
    board: d.board,
    renew: (req) => d.resolver.renew(req),
    current: (req) => d.resolver.current(req),
    acting: d.acting,
    maxKeys: d.maxKeys,
    counted: {
      head: registerRefreshMetrics(d.registry),
      touched: counted === null ? () => {} : (outcome) => counted(outcome, 1),
    },
    onRefreshed: d.onRefreshed,
    logger: d.logger,
  });
  d.heads.on('head', (height) => void engine.head(height));
  d.heads.on('rebase', (height) => {
    engine.rebase(height);
    void engine.head(height);
  });
  d.touched.subscribe({ block: (set) => void engine.block(set) });
  return engine;
}
