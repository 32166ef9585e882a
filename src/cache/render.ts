/**
 * Rendering an entry's body at a moment: the time-relative fields located at
 * store time (stamps) are replaced by `now` / `now - base` by concatenating
 * zero-copy slices of the stored body with the new digits. No JSON work.
 */
import type { Stamp } from '../transform/stamps.js';
import type { CacheEntry } from './types.js';

/** The text a stamp takes at `nowMs`. */
export function digits(stamp: Stamp, nowMs: number): string {
  return String(Math.trunc(stamp.kind === 'now' ? nowMs : nowMs - stamp.base));
}

/** The stored body with its stamps applied at `nowMs`; the body itself when it has none. */
export function renderBody(entry: Pick<CacheEntry, 'body' | 'stamps'>, nowMs: number): Buffer {
  const { body, stamps } = entry;
  if (stamps.length === 0) return body;
  const texts: string[] = [];
  let size = body.length;
  for (const s of stamps) {
    const t = digits(s, nowMs);
    texts.push(t);
    size += t.length - (s.end - s.start);
  }
  // Not from the shared pool: a rendered copy is held by its entry for a second or more.
  const out = Buffer.allocUnsafeSlow(size);
  let src = 0;
  let dst = 0;
  stamps.forEach((s, i) => {
    dst += body.copy(out, dst, src, s.start);
    dst += out.write(texts[i] ?? '', dst, 'latin1');
    src = s.end;
  });
  body.copy(out, dst, src);
  return out;
}
