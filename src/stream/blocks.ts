/**
 * The block records of a `block/list` answer, as the raw bytes the upstream
 * wrote (no re-serialization: the event carries the record exactly as
 * `block/list` returns it).
 */
import { forEachItem, locate, member, numberAt, stringAt } from '../transform/json-scan.js';

export interface BlockPage {
  /** Record bytes by height. */
  records: Map<number, Buffer>;
  /** `block_hash` by height (records without one are left out). */
  hashes: Map<number, string>;
  /** Highest height with `is_finality: true` on the page, or null. */
  final: number | null;
}

export function blockPage(body: Buffer): BlockPage {
  const records = new Map<number, Buffer>();
  const hashes = new Map<number, string>();
  let final: number | null = null;
  const list = locate(body, ['data', 'list']);
  if (list === null) return { records, hashes, final };
  forEachItem(body, list.start, (r) => {
    const h = member(body, r.start, 'height');
    const height = h === null ? null : numberAt(body, h);
    if (height === null || !Number.isSafeInteger(height)) return;
    records.set(height, body.subarray(r.start, r.end));
    const hash = member(body, r.start, 'block_hash');
    const value = hash === null ? null : stringAt(body, hash);
    if (value !== null) hashes.set(height, value);
    const f = member(body, r.start, 'is_finality');
    if (f !== null && body.toString('latin1', f.start, f.end) === 'true' && (final === null || height > final))
      final = height;
  });
  return { records, hashes, final };
}
