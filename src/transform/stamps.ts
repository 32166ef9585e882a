/**
 * Time-relative fields, located once at store time so a hit can re-stamp them
 * by byte splicing (see cache/render.ts):
 *
 * - `data.server_timestamp` (any endpoint): 'now';
 * - in `tx/nrc20`, each `data.txnList[i].currentTimestamp`: 'now', and
 *   `data.txnList[i].timeDiff`: 'diff' with base = that item's `timestamp` (ms).
 *
 * Only number tokens are stamped; absent or non-numeric fields are skipped
 * (a `timeDiff` whose item has no numeric `timestamp` is left alone).
 */
import type { Stamp } from '../cache/types.js';
import { forEachItem, forEachMember, keyIs, member, numberAt, root, type Range } from './json-scan.js';

function nowStamp(r: Range): Stamp {
  return { start: r.start, end: r.end, kind: 'now', base: 0 };
}

function nrc20Stamps(body: Buffer, list: Range, out: Stamp[]): void {
  if (body[list.start] !== 0x5b) return;
  forEachItem(body, list.start, (itemRange) => {
    if (body[itemRange.start] !== 0x7b) return;
    let current: Range | null = null;
    let diff: Range | null = null;
    let base: number | null = null;
    forEachMember(body, itemRange.start, (ks, ke, v) => {
      if (keyIs(body, ks, ke, 'currentTimestamp')) current = numberAt(body, v) === null ? null : v;
      else if (keyIs(body, ks, ke, 'timeDiff')) diff = numberAt(body, v) === null ? null : v;
      else if (keyIs(body, ks, ke, 'timestamp')) base = numberAt(body, v);
    });
    if (current !== null) out.push(nowStamp(current));
    if (diff !== null && base !== null) {
      const d: Range = diff;
      out.push({ start: d.start, end: d.end, kind: 'diff', base });
    }
  });
}

export function findStamps(body: Buffer, endpointPath: string): Stamp[] {
  const top = root(body);
  if (top === null || body[top.start] !== 0x7b) return [];
  const data = member(body, top.start, 'data');
  if (data === null || body[data.start] !== 0x7b) return [];
  const out: Stamp[] = [];
  const ts = member(body, data.start, 'server_timestamp');
  if (ts !== null && numberAt(body, ts) !== null) out.push(nowStamp(ts));
  if (endpointPath.replace(/^\/+/, '') === 'tx/nrc20') {
    const list = member(body, data.start, 'txnList');
    if (list !== null) nrc20Stamps(body, list, out);
  }
  return out.sort((a, b) => a.start - b.start);
}
