/**
 * Which upstreams may take an attempt at all: the one rule, read by selection
 * (select.ts) before it narrows by preference. Any attempt needs the breaker
 * to let a call through; a hedge, a confirmation or a ballot (`untriedOnly`)
 * only goes to an upstream this request has not tried; a confirmation or a
 * ballot (`strict`) also needs one healthy by its last probe, with a free slot
 * or queue room, fresh (within maxLagBlocks of the best head) and not sitting out.
 */
import type { Upstream } from './upstream.js';

/** What a request asks of the upstream that takes its next attempt. */
export interface EligibilityContext {
  bestHead: number | null;
  maxLagBlocks: number;
  /** Names already tried by this request. */
  tried: ReadonlySet<string>;
  /** Only an untried upstream will do (hedges, confirmations, ballots). */
  untriedOnly?: boolean;
  /** Also healthy, unsaturated, fresh and not sitting out (confirmations, ballots; with untriedOnly). */
  strict?: boolean;
  /** Benched upstreams (sit-out.ts). */
  sittingOut?: ((name: string) => boolean) | null;
}

/** Pure: whether `u` may take the next attempt of a request asking `c`. */
export function eligible(u: Upstream, c: EligibilityContext): boolean {
  if (!u.breaker.canPass()) return false;
  if (c.untriedOnly === true && c.tried.has(u.name)) return false;
  if (c.strict !== true) return true;
  const benched = c.sittingOut ?? null;
  return u.healthy() && !u.saturated() && u.fresh(c.bestHead, c.maxLagBlocks) && (benched === null || !benched(u.name));
}
