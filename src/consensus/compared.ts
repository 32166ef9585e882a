/**
 * Which answers are voted on, and which of their fields the comparison leaves
 * out. Voted: the endpoints whose answers can be kept with the final (long)
 * TTL (`finalCapable` in their module). Left out: what legitimately differs
 * between two honest upstreams, that is the envelope's `msg`, the paging links
 * (`data.next`, `data.previous`: built from each upstream's own base URL) and
 * the module's declared volatile stamps. Paths start at the envelope; `*` is
 * every item of an array. Everything else must match once canonical.
 */
import { ENDPOINTS } from '../endpoints/index.js';
import type { EndpointModule, StampDecl } from '../endpoints/types.js';

type Paths = readonly (readonly string[])[];

/** Left out of every answer. */
const ENVELOPE: Paths = [['msg'], ['data', 'next'], ['data', 'previous']];

/** The fields left out of the comparison of an answer whose module declares `stamps`. */
export function ignoredFields(stamps: StampDecl): Paths {
  const out: (readonly string[])[] = [...ENVELOPE, ...stamps.data.map((f) => ['data', f])];
  const items = stamps.items;
  if (items !== undefined) out.push(['data', items.list, '*', items.now], ['data', items.list, '*', items.diff]);
  return out;
}

/** Ignored paths of each voted endpoint's module. */
export const VOTED: ReadonlyMap<EndpointModule, Paths> = new Map(
  ENDPOINTS.filter((m) => m.finalCapable).map((m) => [m, ignoredFields(m.stamps)]),
);
