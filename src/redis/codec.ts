/**
 * CacheEntry ⇄ bytes for the Redis tier.
 *
 *   offset 0   'C' 'P' 'X'          magic
 *   offset 3   0x02                 format version (also in the Redis key: entryKeyPart)
 *   offset 4   uint32 BE            header length H
 *   offset 8   H bytes UTF-8 JSON   every CacheEntry field except `body`, plus
 *                                   `len` (identity body length) and `gzLen` (gzip variant length, 0: none);
 *                                   `deps` (precise invalidation tags), `tagHeader`, `contentType` only when present
 *   offset 8+H len bytes            the body (identity)
 *   then       gzLen bytes          its gzip variant (level 6, the memory tier's setting)
 *
 * Bodies longer than `compressAboveBytes` are stored with their gzip variant
 * beside them (unless gzip does not make them smaller): a hit decodes with no
 * inflate, answers identity with the first bytes and gzip with the second
 * (kept as the body's gzip bytes, cache/carried-gzip.ts). Anything that is not
 * exactly this format (foreign, corrupt, truncated, another version, a header
 * missing a field) decodes to `undefined`; the store deletes such a value and
 * treats it as a miss.
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { CacheEntry, EntryDeps } from '../cache/types.js';
import type { Stamp } from '../transform/stamps.js';
import { carryGzip } from '../cache/carried-gzip.js';

const gzipAsync = promisify(gzip);

const CODEC_MAGIC = Buffer.from('CPX', 'latin1');
export const CODEC_VERSION = 2;
/**
 * The part of every entry's Redis key that names the format: replicas of
 * another format (a rolling upgrade) read and write other keys instead of
 * deleting each other's values as undecodable.
 */
export const ENTRY_KEY_PART = `e${CODEC_VERSION}:`;
const PREFIX_BYTES = 8;

type Header = Omit<CacheEntry, 'body'> & { len: number; gzLen: number };

export async function encodeEntry(entry: CacheEntry, compressAboveBytes: number): Promise<Buffer> {
  let gz: Buffer | null = null;
  if (entry.body.length > compressAboveBytes) {
    const packed = await gzipAsync(entry.body, { level: 6 });
    if (packed.length < entry.body.length) gz = packed;
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
    len: entry.body.length,
    gzLen: gz === null ? 0 : gz.length,
    ...(entry.deps !== undefined ? { deps: encodeDeps(entry.deps) } : {}),
    ...(entry.tagHeader !== undefined ? { tagHeader: entry.tagHeader } : {}),
    ...(entry.contentType !== undefined ? { contentType: entry.contentType } : {}),
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(PREFIX_BYTES);
  CODEC_MAGIC.copy(prefix, 0);
  prefix.writeUInt8(CODEC_VERSION, 3);
  prefix.writeUInt32BE(json.length, 4);
  return Buffer.concat(gz === null ? [prefix, json, entry.body] : [prefix, json, entry.body, gz]);
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
    Number.isInteger(h.len) &&
    (h.len as number) >= 0 &&
    Number.isInteger(h.gzLen) &&
    (h.gzLen as number) >= 0 &&
    isDeps(h.deps) &&
    (h.tagHeader === undefined || typeof h.tagHeader === 'string') &&
    (h.contentType === undefined || typeof h.contentType === 'string')
  );
}

/** The entry, or undefined for anything not written by this codec version. */
/** The entry in `raw`, or undefined when it is not exactly this format. Synchronous: nothing to inflate. */
export function decodeEntry(raw: Buffer): CacheEntry | undefined {
  if (raw.length < PREFIX_BYTES || !raw.subarray(0, 3).equals(CODEC_MAGIC) || raw.readUInt8(3) !== CODEC_VERSION)
    return undefined;
  const headerLen = raw.readUInt32BE(4);
  if (PREFIX_BYTES + headerLen > raw.length) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(raw.toString('utf8', PREFIX_BYTES, PREFIX_BYTES + headerLen));
  } catch {
    return undefined;
  }
  if (!isHeader(header)) return undefined;
  const at = PREFIX_BYTES + headerLen;
  if (raw.length !== at + header.len + header.gzLen) return undefined;
  // The body is copied (its own memory: the memory tier may keep it); the gzip
  // bytes stay a view into `raw`, copied only by the memory tier when it keeps them.
  const body = Buffer.allocUnsafeSlow(header.len);
  raw.copy(body, 0, at, at + header.len);
  if (header.gzLen > 0) carryGzip(body, raw.subarray(at + header.len));
  const { len: _len, gzLen: _gzLen, ...fields } = header;
  return { ...fields, body };
}
