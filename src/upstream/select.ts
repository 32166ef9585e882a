/**
 * Picks the upstream for the next attempt. Narrowing, each step falling back
 * to the previous set when it would leave nothing:
 *  1. eligible (eligible.ts, no fallback): the breaker lets a call through
 *     (closed, or half-open with its trial slot free), and the stricter
 *     tests of hedges, confirmations and ballots; then not sitting out (sit-out.ts);
 *  2. for 'head' requests: fresh (head ≥ bestHead − maxLagBlocks). When no
 *     permitted upstream is fresh, fall back to the permitted one(s) with the
 *     highest known head rather than failing, and mark the choice
 *     `laggingFallback` (block/max stays monotonic through the `accept` hook);
 *  3. for requests about one block height: the upstream's own head covers it
 *     (for final data, its own final height: head − (best head − final height));
 *     when none does, the highest known head, marked `uncovered` (never a
 *     hedge: an upstream without the block would win with "no transactions");
 *  4. healthy by the last probe (or not probed yet);
 *  5. admission queue not full;
 *  6. not already tried by this request (retries go elsewhere when possible;
 *     hedges only ever go to an untried, fresh upstream);
 *  7. for 'head' requests: at the best head (a fresh upstream a block behind
 *     answers without that block, and its answer is kept only until the block
 *     is known to change it: fewer refetches when one at the head can take it).
 * Then least in-flight wins, ties broken by the lower latency EWMA (unknown
 * latency counts as 0, so a new upstream gets tried), then configuration order.
 *
 * Why least-outstanding-requests: a backend that slows down accumulates
 * in-flight requests at once, so new traffic leaves it within the same burst,
 * whereas round robin keeps sending it 1/N of the traffic; ranking on the
 * EWMA alone would herd every request onto the one "fastest" backend until
 * its latency catches up.
 */
import type { Freshness } from '../catalogue/types.js';
import { eligible, type EligibilityContext } from './eligible.js';
import type { Upstream } from './upstream.js';

/** Benched upstreams (`sittingOut`) are used only when nothing else can be (never when `strict`). */
export interface SelectOptions extends EligibilityContext {
  freshness: Freshness;
  /** The block height the request is about, if any. */
  height?: { value: number; final: boolean } | null | undefined;
  finalHeight?: number | null;
}

export interface Selection {
  upstream: Upstream;
  /** A 'head' request went to a lagging upstream because no fresh one was available. */
  laggingFallback: boolean;
  /** A height request went to an upstream whose head does not cover the height (none did). */
  uncovered: boolean;
}

/** Pure: whether an upstream at `head` has the block `height` (as final data when `final`). */
export function covers(
  head: number | null,
  height: number,
  final: boolean,
  bestHead: number | null,
  finalHeight: number | null,
): boolean {
  if (head === null) return false;
  if (!final) return head >= height;
  const depth = bestHead !== null && finalHeight !== null ? Math.max(0, bestHead - finalHeight) : 0;
  return head - depth >= height;
}

function narrow<T>(items: T[], keep: (item: T) => boolean): T[] {
  const kept = items.filter(keep);
  return kept.length > 0 ? kept : items;
}

function rank(a: Upstream, b: Upstream): number {
  if (a.inFlight !== b.inFlight) return a.inFlight - b.inFlight;
  return (a.latency.ewma ?? 0) - (b.latency.ewma ?? 0);
}

export function selectUpstream(upstreams: readonly Upstream[], o: SelectOptions): Selection | null {
  let pool = upstreams.filter((u) => eligible(u, o));
  if (pool.length === 0) return null;
  const benched = o.sittingOut ?? null;
  if (benched !== null) pool = narrow(pool, (u) => !benched(u.name));

  let laggingFallback = false;
  if (o.freshness === 'head') {
    const fresh = pool.filter((u) => u.fresh(o.bestHead, o.maxLagBlocks));
    if (fresh.length > 0) {
      pool = fresh;
    } else {
      if (o.untriedOnly) return null; // never hedge onto a lagging upstream
      laggingFallback = true;
      const top = Math.max(...pool.map((u) => u.head ?? -1));
      pool = pool.filter((u) => (u.head ?? -1) === top);
    }
  }
  let uncovered = false;
  const need = o.height;
  if (need) {
    const having = pool.filter((u) => covers(u.head, need.value, need.final, o.bestHead, o.finalHeight ?? null));
    if (having.length > 0) {
      pool = having;
    } else {
      if (o.untriedOnly) return null; // never hedge onto an upstream without the block
      uncovered = true;
      const top = Math.max(...pool.map((u) => u.head ?? -1));
      pool = pool.filter((u) => (u.head ?? -1) === top);
    }
  }
  pool = narrow(pool, (u) => u.probeOk !== false);
  pool = narrow(pool, (u) => !u.saturated());
  pool = narrow(pool, (u) => !o.tried.has(u.name));
  const best = o.bestHead;
  if (o.freshness === 'head' && best !== null) pool = narrow(pool, (u) => u.head !== null && u.head >= best);

  let chosen: Upstream | undefined;
  for (const u of pool) if (chosen === undefined || rank(u, chosen) < 0) chosen = u;
  return chosen === undefined ? null : { upstream: chosen, laggingFallback, uncovered };
}
