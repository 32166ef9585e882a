/**
 * Time-relative fields, located once at store time so a hit can re-stamp them
 * by byte splicing (see cache/render.ts). Each endpoint module declares its
 * stamps (src/endpoints/types.ts StampDecl):
 *
 * - `data.<field>` (e.g. `server_timestamp`): 'now';
 * - per item of `data.<list>`: `now` is 'now', and `diff` is 'diff' with base =
 *   that item's `base` field (ms) (tx/nrc20: currentTimestamp, timeDiff, timestamp).
 *
 * Only number tokens are stamped; absent or non-numeric fields are skipped
 * (a `diff` whose item has no numeric base is left alone).
 */
import { moduleOf } from '../endpoints/index.js';
import type { StampDecl } from '../endpoints/types.js';
import { forEachItem, forEachMember, keyIs, member, numberAt, root, type Range } from './json-scan.js';

/**
 * A time-relative number inside the body (`server_timestamp`, `currentTimestamp`,
 * `timeDiff`): byte range of the number token in `body`. On delivery the range is
 * replaced by `now` ('now') or `now - base` ('diff'), without touching the JSON.
 */
export interface Stamp {
  start: number;
  end: number;
  kind: 'now' | 'diff';
  /** For 'diff': the item's own timestamp in ms. */
  base: number;
}

function nowStamp(r: Range): Stamp {
  return { start: r.start, end: r.end, kind: 'now', base: 0 };
}

function itemStamps(body: Buffer, list: Range, decl: NonNullable<StampDecl['items']>, out: Stamp[]): void {
  if (body[list.start] !== 0x5b) return;
  forEachItem(body, list.start, (itemRange) => {
    if (body[itemRange.start] !== 0x7b) return;
    let current: Range | null = null;
    let diff: Range | null = null;
    let base: number | null = null;
    forEachMember(body, itemRange.start, (ks, ke, v) => {
      if (keyIs(body, ks, ke, decl.now)) current = numberAt(body, v) === null ? null : v;
      else if (keyIs(body, ks, ke, decl.diff)) diff = numberAt(body, v) === null ? null : v;
      else if (keyIs(body, ks, ke, decl.base)) base = numberAt(body, v);
    });
    if (current !== null) out.push(nowStamp(current));
    if (diff !== null && base !== null) {
      const d: Range = diff;
      out.push({ start: d.start, end: d.end, kind: 'diff', base });
    }
  });
}

/** The stamps of a success body of `endpointPath` (leading slash optional); none for an unknown path. */
export function findStamps(body: Buffer, endpointPath: string): Stamp[] {
  const decl = moduleOf(endpointPath.replace(/^\/+/, ''))?.stamps;
  if (decl === undefined) return [];
  const top = root(body);
  if (top === null || body[top.start] !== 0x7b) return [];
  const data = member(body, top.start, 'data');
  if (data === null || body[data.start] !== 0x7b) return [];
  const out: Stamp[] = [];
  for (const field of decl.data) {
    const r = member(body, data.start, field);
    if (r !== null && numberAt(body, r) !== null) out.push(nowStamp(r));
  }
  if (decl.items !== undefined) {
    const list = member(body, data.start, decl.items.list);
    if (list !== null) itemStamps(body, list, decl.items, out);
  }
  return out.sort((a, b) => a.start - b.start);
}
