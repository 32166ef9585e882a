/**
 * A composed page as stored: ready-to-send bytes with the time-relative fields
 * of its parts (stamps, shifted to their place in the page), an ETag made of
 * the part versions and the head, and its freshness.
 */
import { createHash } from 'node:crypto';
import type { Stamp } from '../cache/types.js';
import { renderBody } from '../cache/render.js';

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
  parts: readonly PartSummary[];
  /** Identity rendering of the current second (stamped pages), made at most once per second. */
  rendered: { second: number; body: Buffer } | null;
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

/** The body to send at `now`: re-stamped to the current second, cached per second. */
export function composedBody(e: ComposedEntry, now: number): Buffer {
  if (e.stamps.length === 0) return e.body;
  const second = Math.floor(now / 1000);
  if (e.rendered !== null && e.rendered.second === second) return e.rendered.body;
  const body = renderBody(e, second * 1000);
  e.rendered = { second, body };
  return body;
}
