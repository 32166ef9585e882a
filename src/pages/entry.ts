/**
 * A composed page as stored: ready-to-send bytes with the time-relative fields
 * of its parts (stamps, shifted to their place in the page), an ETag made of
 * the part versions and the head, and its freshness.
 */
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Encoding, Stamp } from '../cache/types.js';
import type { CanonicalRequest } from '../catalogue/types.js';
import { renderBody } from '../cache/render.js';

export interface Rendered {
  /** Second of the stamps (-1: a stamp-free page, valid forever). */
  second: number;
  body: Buffer;
  encoding: Encoding;
}

export interface PartSummary {
  name: string;
  /** HIT, MISS, STALE, BYPASS, ERROR (failed) or SKIPPED. */
  cache: string;
}

export interface ComposedEntry {
  key: string;
  status: number;
  body: Buffer;
  stamps: readonly Stamp[];
  etag: string;
  createdAt: number;
  /** Smallest remaining freshness of the parts (a failed optional part: short). */
  freshUntil: number;
  /** Head the page was composed at. */
  head: number | null;
  /** Stale once the best head moves past `head` (a part is head-relative). */
  headDependent: boolean;
  /** Every part is final content: `Cache-Control: immutable`. */
  immutable: boolean;
  /** A part was served stale while it revalidates: sent as STALE with max-age=0, kept briefly. */
  stale: boolean;
  /** Requests of the parts served stale: once one is fresh again, the page is recomposed. */
  staleParts: readonly CanonicalRequest[];
  parts: readonly PartSummary[];
  /** Renderings per encoding (re-stamped for the current second), made at most once per second each. */
  rendered: Partial<Record<Encoding, Rendered>>;
}

/** Fresh: before freshUntil and, when head-relative, the best head has not moved past its head. */
export function isComposedFresh(e: ComposedEntry, now: number, bestHead: number | null): boolean {
  if (now >= e.freshUntil) return false;
  return !(e.headDependent && e.head !== null && bestHead !== null && bestHead > e.head);
}

/** W/"…" over the page key, each part's version (entry ETag, error code or skip) and the head. */
export function composedEtag(key: string, versions: readonly string[], head: number | null): string {
  const h = createHash('sha1').update(key);
  for (const v of versions) h.update('\n').update(v);
  h.update(`\nhead=${head ?? ''}`);
  return `W/"p${h.digest('base64url')}"`;
}

/** Smallest page body worth compressing. */
const COMPRESS_MIN_BYTES = 1024;

function compress(body: Buffer, encoding: Encoding): Buffer {
  if (encoding === 'gzip') return gzipSync(body, { level: 6 });
  return brotliCompressSync(body, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
  });
}

/**
 * The bytes to send at `now` for the negotiated encoding: re-stamped to the
 * current second and compressed (gzip 6 / brotli 5, when smaller), at most
 * once per second per encoding; a stamp-free page once for its lifetime.
 */
export function composedPayload(e: ComposedEntry, encoding: Encoding, now: number): Rendered {
  const second = e.stamps.length === 0 ? -1 : Math.floor(now / 1000);
  const enc: Encoding = e.body.length < COMPRESS_MIN_BYTES ? 'identity' : encoding;
  const cached = e.rendered[enc];
  if (cached !== undefined && cached.second === second) return cached;
  const identity = second === -1 ? e.body : renderBody(e, second * 1000);
  let out: Rendered = { second, body: identity, encoding: 'identity' };
  if (enc !== 'identity') {
    const packed = compress(identity, enc);
    if (packed.length < identity.length) out = { second, body: packed, encoding: enc };
  }
  e.rendered[enc] = out;
  return out;
}
