/**
 * CacheEntry ⇄ bytes for the Redis tier.
 *
 *   offset 0   'C' 'P' 'X'          magic
 *   offset 3   0x01                 format version
 *   offset 4   uint32 BE            header length H
 *   offset 8   H bytes UTF-8 JSON   every CacheEntry field except `body`, plus
 *                                   `gz` (payload is gzip) and `len` (identity body length);
 *                                   `deps` (precise invalidation tags), `tagHeader` only when present
 *   offset 8+H payload              the body, gzip-compressed when `gz`
 *
 * Bodies longer than `compressAboveBytes` are compressed (unless gzip does not
 * make them smaller), at level 6 like the memory tier's gzip variant: on decode
 * the compressed payload is kept as the body's gzip bytes (cache/carried-gzip.ts),
 * so a Redis hit answers gzip requests without compressing. Anything that is not exactly this format — foreign,
 * corrupt, truncated, another version, a header missing a field — decodes to
 * `undefined`; the store deletes such a value and treats it as a miss.
 */
import { promisify } from 'node:util';
import { gunzip, gunzipSync, gzip } from 'node:zlib';
import type { CacheEntry, EntryDeps } from '../cache/types.js';
import type { Stamp } from '../transform/stamps.js';
import { carryGzip } from '../cache/carried-gzip.js';
import { ownedBytes } from '../cache/owned.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

const CODEC_MAGIC = Buffer.from('CPX', 'latin1');
export const CODEC_VERSION = 1;
const PREFIX_BYTES = 8;
/**
 * Payloads up to this size are inflated synchronously: for the few-KiB bodies
 * of most entries a zlib stream on the thread pool costs about 4 × the CPU of
 * the inflate itself (tens of µs per Redis hit). Larger ones go to the pool.
 */
const INFLATE_SYNC_MAX_BYTES = 32 * 1024;

type Header = Omit<CacheEntry, 'body'> & { gz: boolean; len: number };

export async function encodeEntry(entry: CacheEntry, compressAboveBytes: number): Promise<Buffer> {
  let payload = entry.body;
  let gz = false;
  if (entry.body.length > compressAboveBytes) {
    const packed = await gzipAsync(entry.body, { level: 6 });
    if (packed.length < entry.body.length) {
      payload = packed;
      gz = true;
    }
  }
  const header: Header = {
    key: entry.key,
    status: entry.status,
    etag: entry.etag,
    createdAt: entry.createdAt,
    freshUntil: entry.freshUntil,
    swrUntil: entry.swrUntil,
    sieUntil: entry.sieUntil,
    head: entry.head,
    headDependent: entry.headDependent,
    finalAt: entry.finalAt,
    negative: entry.negative,
    stamps: entry.stamps.map((s) => ({ start: s.start, end: s.end, kind: s.kind, base: s.base })),
    gz,
    len: entry.body.length,
    ...(entry.deps !== undefined ? { deps: encodeDeps(entry.deps) } : {}),
    ...(entry.tagHeader !== undefined ? { tagHeader: entry.tagHeader } : {}),
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(PREFIX_BYTES);
  CODEC_MAGIC.copy(prefix, 0);
  prefix.writeUInt8(CODEC_VERSION, 3);
  prefix.writeUInt32BE(json.length, 4);
  return Buffer.concat([prefix, json, payload]);
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isNumOrNull = (v: unknown): v is number | null => v === null || isNum(v);

function isStamp(v: unknown): v is Stamp {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Record<string, unknown>;
  return isNum(s.start) && isNum(s.end) && (s.kind === 'now' || s.kind === 'diff') && isNum(s.base);
}

function encodeDeps(d: EntryDeps): EntryDeps {
  return {
    tags: [...d.tags],
    watchFinal: d.watchFinal,
    ...(d.watchHead !== undefined ? { watchHead: d.watchHead } : {}),
    ...(d.clientMaxMs !== undefined ? { clientMaxMs: d.clientMaxMs } : {}),
  };
}

function isDeps(v: unknown): boolean {
  if (v === undefined) return true;
  if (typeof v !== 'object' || v === null) return false;
  const d = v as Record<string, unknown>;
  return (
    Array.isArray(d.tags) &&
    d.tags.every((t) => typeof t === 'string') &&
    isNumOrNull(d.watchFinal) &&
    (d.watchHead === undefined || isNum(d.watchHead)) &&
    (d.clientMaxMs === undefined || isNum(d.clientMaxMs))
  );
}

function isHeader(v: unknown): v is Header {
  if (typeof v !== 'object' || v === null) return false;
  const h = v as Record<string, unknown>;
  return (
    typeof h.key === 'string' &&
    Number.isInteger(h.status) &&
    typeof h.etag === 'string' &&
    isNum(h.createdAt) &&
    isNum(h.freshUntil) &&
    isNum(h.swrUntil) &&
    isNum(h.sieUntil) &&
    isNumOrNull(h.head) &&
    typeof h.headDependent === 'boolean' &&
    isNumOrNull(h.finalAt) &&
    typeof h.negative === 'boolean' &&
    Array.isArray(h.stamps) &&
    h.stamps.every(isStamp) &&
    typeof h.gz === 'boolean' &&
    Number.isInteger(h.len) &&
    (h.len as number) >= 0 &&
    isDeps(h.deps) &&
    (h.tagHeader === undefined || typeof h.tagHeader === 'string')
  );
}

/** The entry, or undefined for anything not written by this codec version. */
export async function decodeEntry(raw: Buffer): Promise<CacheEntry | undefined> {
  if (raw.length < PREFIX_BYTES || !raw.subarray(0, 3).equals(CODEC_MAGIC) || raw.readUInt8(3) !== CODEC_VERSION)
    return undefined;
  const headerLen = raw.readUInt32BE(4);
  if (PREFIX_BYTES + headerLen > raw.length) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(raw.subarray(PREFIX_BYTES, PREFIX_BYTES + headerLen).toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isHeader(header)) return undefined;
  const payload = raw.subarray(PREFIX_BYTES + headerLen);
  let body: Buffer;
  if (header.gz) {
    try {
      body = ownedBytes(payload.length <= INFLATE_SYNC_MAX_BYTES ? gunzipSync(payload) : await gunzipAsync(payload));
    } catch {
      return undefined;
    }
    // A view into `raw`: copied only by the memory tier when it keeps the entry.
    if (body.length === header.len) carryGzip(body, payload);
  } else {
    body = Buffer.allocUnsafeSlow(payload.length);
    payload.copy(body);
  }
  if (body.length !== header.len) return undefined;
  const { gz: _gz, len: _len, ...fields } = header;
  return { ...fields, body };
}
