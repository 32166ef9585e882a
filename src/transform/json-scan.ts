/**
 * A minimal JSON scanner over raw bytes: finds the byte range of values by
 * path, so body edits are byte splices and the upstream's own formatting
 * (`4842503.0`, `1.0`, key order, escapes) survives. It never builds a value:
 * it walks the bytes once (O(n)), with no allocation per character.
 *
 * It trusts the structure of bodies that already parsed with JSON.parse, but
 * never reads out of bounds or loops on garbage: malformed input yields -1 /
 * null / false. Strings are skipped by their closing quote (a backslash always
 * skips the next byte, so `\"`, `\\` and `\uXXXX` are handled; UTF-8
 * continuation bytes are >= 0x80 and can never look like `"` or `\`).
 */

/** Byte range [start, end) of a value token in the body (strings include their quotes). */
export interface Range {
  start: number;
  end: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

function isWs(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Index of the first non-whitespace byte at or after i. */
function skipWs(buf: Buffer, i: number): number {
  while (i < buf.length && isWs(buf[i])) i++;
  return i;
}

/** End (exclusive) of the string starting at the quote at i, or -1. */
function skipString(buf: Buffer, i: number): number {
  if (buf[i] !== QUOTE) return -1;
  const n = buf.length;
  i++;
  while (i < n) {
    const c = buf[i];
    if (c === QUOTE) return i + 1;
    i += c === BACKSLASH ? 2 : 1;
  }
  return -1;
}

/** End of the object or array starting at i (depth counting, strings skipped), or -1. */
function skipContainer(buf: Buffer, i: number): number {
  const n = buf.length;
  let depth = 0;
  while (i < n) {
    const c = buf[i];
    if (c === QUOTE) {
      i = skipString(buf, i);
      if (i < 0) return -1;
      continue;
    }
    if (c === LBRACE || c === LBRACKET) depth++;
    else if (c === RBRACE || c === RBRACKET) {
      depth--;
      if (depth === 0) return i + 1;
      if (depth < 0) return -1;
    }
    i++;
  }
  return -1;
}

/** True for the bytes that may appear in a number or a literal (true/false/null). */
function isScalarByte(c: number | undefined): boolean {
  if (c === undefined) return false;
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || (c >= 0x61 && c <= 0x7a) || c === 0x45;
}

/** End (exclusive) of the value starting exactly at i (no leading whitespace), or -1. */
export function skipValue(buf: Buffer, i: number): number {
  const c = buf[i];
  if (c === undefined) return -1;
  if (c === QUOTE) return skipString(buf, i);
  if (c === LBRACE || c === LBRACKET) return skipContainer(buf, i);
  let j = i;
  while (j < buf.length && isScalarByte(buf[j])) j++;
  return j > i ? j : -1;
}

/**
 * Calls `visit(keyStart, keyEnd, value)` for each member of the object whose `{`
 * is at i (key range excludes the quotes). `visit` returns true to stop.
 * Returns false when the object is malformed.
 */
export function forEachMember(
  buf: Buffer,
  i: number,
  visit: (keyStart: number, keyEnd: number, value: Range) => boolean | void,
): boolean {
  if (buf[i] !== LBRACE) return false;
  i = skipWs(buf, i + 1);
  if (buf[i] === RBRACE) return true;
  for (;;) {
    const keyEnd = skipString(buf, i);
    if (keyEnd < 0) return false;
    const colon = skipWs(buf, keyEnd);
    if (buf[colon] !== COLON) return false;
    const vStart = skipWs(buf, colon + 1);
    const vEnd = skipValue(buf, vStart);
    if (vEnd < 0) return false;
    if (visit(i + 1, keyEnd - 1, { start: vStart, end: vEnd }) === true) return true;
    i = skipWs(buf, vEnd);
    if (buf[i] === RBRACE) return true;
    if (buf[i] !== COMMA) return false;
    i = skipWs(buf, i + 1);
  }
}

/** Calls `visit(value, index)` for each item of the array whose `[` is at i. Returns false when malformed. */
export function forEachItem(buf: Buffer, i: number, visit: (value: Range, index: number) => boolean | void): boolean {
  if (buf[i] !== LBRACKET) return false;
  i = skipWs(buf, i + 1);
  if (buf[i] === RBRACKET) return true;
  for (let index = 0; ; index++) {
    const vEnd = skipValue(buf, i);
    if (vEnd < 0) return false;
    if (visit({ start: i, end: vEnd }, index) === true) return true;
    i = skipWs(buf, vEnd);
    if (buf[i] === RBRACKET) return true;
    if (buf[i] !== COMMA) return false;
    i = skipWs(buf, i + 1);
  }
}

/** Whether the raw key bytes [start, end) (no quotes) spell the ASCII `name`, decoding escapes if any. */
export function keyIs(buf: Buffer, start: number, end: number, name: string): boolean {
  if (end - start === name.length) {
    let k = 0;
    while (k < name.length && buf[start + k] === name.charCodeAt(k)) k++;
    if (k === name.length) return true;
  }
  let escaped = false;
  for (let k = start; k < end && !escaped; k++) escaped = buf[k] === BACKSLASH;
  if (!escaped) return false;
  // Rare: an escaped key (`"ne\u0078t"`). Decode this one key only.
  try {
    return JSON.parse(buf.toString('utf8', start - 1, end + 1)) === name;
  } catch {
    return false;
  }
}

/** Range of the value of member `name` of the object at i (the last one, as JSON.parse), or null. */
export function member(buf: Buffer, i: number, name: string): Range | null {
  let found: Range | null = null;
  const ok = forEachMember(buf, i, (ks, ke, v) => {
    if (keyIs(buf, ks, ke, name)) found = v;
  });
  return ok ? found : null;
}

/** Range of the array item `index` of the array at i, or null. */
function item(buf: Buffer, i: number, index: number): Range | null {
  let found: Range | null = null;
  forEachItem(buf, i, (v, k) => {
    if (k !== index) return false;
    found = v;
    return true;
  });
  return found;
}

/** Range of the top-level value of the body (surrounding whitespace excluded), or null. */
export function root(body: Buffer): Range | null {
  let start = skipWs(body, 0);
  // Tolerate a UTF-8 byte order mark.
  if (body[start] === 0xef && body[start + 1] === 0xbb && body[start + 2] === 0xbf) start = skipWs(body, start + 3);
  const end = skipValue(body, start);
  return end < 0 ? null : { start, end };
}

/**
 * Range of the value at `path` (object keys as strings, array indexes as
 * numbers), e.g. `locate(body, ['data', 'next'])`, or null when absent.
 */
export function locate(body: Buffer, path: readonly (string | number)[]): Range | null {
  let cur = root(body);
  for (const seg of path) {
    if (cur === null) return null;
    cur = typeof seg === 'number' ? item(body, cur.start, seg) : member(body, cur.start, seg);
  }
  return cur;
}

/** Kind of the value token starting at `r.start`. */
export function kindAt(
  buf: Buffer,
  r: Range,
): 'string' | 'object' | 'array' | 'null' | 'true' | 'false' | 'number' | 'invalid' {
  const c = buf[r.start];
  if (c === QUOTE) return 'string';
  if (c === LBRACE) return 'object';
  if (c === LBRACKET) return 'array';
  const len = r.end - r.start;
  if (c === 0x6e && len === 4 && buf.toString('latin1', r.start, r.end) === 'null') return 'null';
  if (c === 0x74 && len === 4 && buf.toString('latin1', r.start, r.end) === 'true') return 'true';
  if (c === 0x66 && len === 5 && buf.toString('latin1', r.start, r.end) === 'false') return 'false';
  if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) return 'number';
  return 'invalid';
}

/** The number at `r` (must be a number token), or null when not a finite number. */
export function numberAt(buf: Buffer, r: Range): number | null {
  if (kindAt(buf, r) !== 'number') return null;
  const n = Number(buf.toString('latin1', r.start, r.end));
  return Number.isFinite(n) ? n : null;
}

/** The decoded string at `r` (must be a string token), or null. */
export function stringAt(buf: Buffer, r: Range): string | null {
  if (buf[r.start] !== QUOTE) return null;
  try {
    const v: unknown = JSON.parse(buf.toString('utf8', r.start, r.end));
    return typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** Replaces the given non-overlapping ranges (any order) by new bytes. */
export function splice(buf: Buffer, edits: readonly { range: Range; bytes: Buffer }[]): Buffer {
  if (edits.length === 0) return buf;
  const sorted = [...edits].sort((a, b) => a.range.start - b.range.start);
  const parts: Buffer[] = [];
  let pos = 0;
  for (const e of sorted) {
    parts.push(buf.subarray(pos, e.range.start), e.bytes);
    pos = e.range.end;
  }
  parts.push(buf.subarray(pos));
  return Buffer.concat(parts);
}
