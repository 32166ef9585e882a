/**
 * Parameter parsers: each validates one already percent-decoded value and
 * returns its canonical string, so equivalent spellings share one cache key.
 * Plain loops, no regular expressions: these run on every request, hits included.
 */
import type { ParamLimits, ParamSpec, ParseResult } from './types.js';

/** The highest page number a request may ask (a link past it would be refused). */
export const MAX_PAGE = 10_000_000;

/**
 * A cross-check message starting with this prefix is reported as
 * MISSING_PARAMETER; any other message as BAD_PARAMETER.
 */
export const MISSING_PREFIX = 'missing parameter';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_OK: boolean[] = Array.from({ length: 128 }, (_, c) => BASE58.includes(String.fromCharCode(c)));

function fail(expected: string): ParseResult {
  return { ok: false, expected };
}

/**
 * Digits only (no sign, fraction, exponent or space); leading zeros are
 * dropped. Returns the value, or -1 when malformed or above `max`.
 */
function parseDecimal(raw: string, max: number): number {
  const len = raw.length;
  if (len === 0 || len > 20) return -1;
  let n = 0;
  for (let i = 0; i < len; i++) {
    const c = raw.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n > max ? -1 : n;
}

function intRange(raw: string, min: number, max: number, expected: string): ParseResult {
  const n = parseDecimal(raw, max);
  return n < min ? fail(expected) : { ok: true, value: String(n) };
}

function parsePage(raw: string): ParseResult {
  return intRange(raw, 1, MAX_PAGE, `an integer from 1 to ${MAX_PAGE}`);
}

function parsePageSize(raw: string, limits: ParamLimits): ParseResult {
  return intRange(raw, 1, limits.maxPageSize, `an integer from 1 to ${limits.maxPageSize}`);
}

function parseDays(raw: string, limits: ParamLimits): ParseResult {
  return intRange(raw, 1, limits.maxDays, `an integer from 1 to ${limits.maxDays}`);
}

const HEIGHT_EXPECTED = 'a block height (a non-negative integer)';

function parseBlockHeight(raw: string): ParseResult {
  return intRange(raw, 0, Number.MAX_SAFE_INTEGER, HEIGHT_EXPECTED);
}

/** Nebulas base58 address: `n` followed by 34 base58 characters (35 in all). */
function parseAddress(raw: string): ParseResult {
  const expected = 'a Nebulas address ("n" followed by 34 base58 characters)';
  if (raw.length !== 35 || raw.charCodeAt(0) !== 110) return fail(expected);
  for (let i = 1; i < 35; i++) {
    const c = raw.charCodeAt(i);
    if (c >= 128 || !BASE58_OK[c]) return fail(expected);
  }
  return { ok: true, value: raw };
}

function isHex64(raw: string): boolean {
  if (raw.length !== 64) return false;
  for (let i = 0; i < 64; i++) {
    const c = raw.charCodeAt(i);
    const digit = c >= 48 && c <= 57;
    const lower = c >= 97 && c <= 102;
    const upper = c >= 65 && c <= 70;
    if (!digit && !lower && !upper) return false;
  }
  return true;
}

const HASH_EXPECTED = 'a hash (64 hexadecimal characters)';

/** 64 hex characters; canonical form is lowercase. */
function parseHash(raw: string): ParseResult {
  return isHex64(raw) ? { ok: true, value: raw.toLowerCase() } : fail(HASH_EXPECTED);
}

/** `h` of block/detail: a block height or a block hash. */
function parseHeightOrHash(raw: string): ParseResult {
  if (raw.length === 64) return parseHash(raw);
  const r = parseBlockHeight(raw);
  return r.ok ? r : fail('a block height (a non-negative integer) or a block hash (64 hexadecimal characters)');
}

/** Token name: 1 to 64 of A-Z a-z 0-9 . _ - (case kept: token names are case-sensitive). */
function parseTokenName(raw: string): ParseResult {
  const expected = 'a token name (1 to 64 characters from A-Z, a-z, 0-9, ".", "_", "-")';
  const len = raw.length;
  if (len === 0 || len > 64) return fail(expected);
  for (let i = 0; i < len; i++) {
    const c = raw.charCodeAt(i);
    const ok =
      (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 46 || c === 95 || c === 45;
    if (!ok) return fail(expected);
  }
  return { ok: true, value: raw };
}

/** is_nrc20: `true`/`1` and `false`/`0` (true/false in any letter case); canonical `true`/`false`. */
function parseFlag(raw: string): ParseResult {
  if (raw === '1') return { ok: true, value: 'true' };
  if (raw === '0') return { ok: true, value: 'false' };
  const lower = raw.length <= 5 ? raw.toLowerCase() : '';
  if (lower === 'true' || lower === 'false') return { ok: true, value: lower };
  return fail('one of true, false, 1, 0');
}

/** A value fit for an error message: at most 40 characters, no control characters. */
export function echo(raw: string): string {
  let out = '';
  const end = Math.min(raw.length, 40);
  for (let i = 0; i < end; i++) {
    const c = raw.charCodeAt(i);
    out +=
      c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029 || c === 0x22 || c === 0x5c ? '?' : raw[i];
  }
  return raw.length > 40 ? `${out}...` : out;
}

export function invalidMessage(name: string, expected: string, raw: string): string {
  return `invalid parameter ${name}: expected ${expected}, got "${echo(raw)}"`;
}

const ADDRESS_PATTERN = '^n[1-9A-HJ-NP-Za-km-z]{34}$';
const HASH_PATTERN = '^[0-9a-fA-F]{64}$';
const TOKEN_PATTERN = '^[A-Za-z0-9._-]{1,64}$';
const HEIGHT_OR_HASH_PATTERN = '^([0-9]{1,16}|[0-9a-fA-F]{64})$';

/** A parameter kind: its parser and its documentation, declared together. */
interface Kind {
  parse: ParamSpec['parse'];
  doc: ParamSpec['doc'];
}

const K = {
  page: {
    parse: parsePage,
    doc: () => ({
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE },
      description: 'Page number (digits only).',
      example: 1,
    }),
  },
  pageSize: {
    parse: parsePageSize,
    doc: (l) => ({
      schema: { type: 'integer', minimum: 1, maximum: l.maxPageSize },
      description: 'Items per page.',
      example: 20,
    }),
  },
  days: {
    parse: parseDays,
    doc: (l) => ({
      schema: { type: 'integer', minimum: 1, maximum: l.maxDays },
      description: 'Number of days back from today.',
      example: 7,
    }),
  },
  height: {
    parse: parseBlockHeight,
    doc: () => ({
      schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      description: 'Block height.',
      example: 4_842_000,
    }),
  },
  address: {
    parse: parseAddress,
    doc: () => ({
      schema: { type: 'string', pattern: ADDRESS_PATTERN },
      description: 'Nebulas address: "n" and 34 base58 characters.',
      example: 'n1d4wXxTVmK4rzyiN1vxhMuzxT441bxr8Fg',
    }),
  },
  hash: {
    parse: parseHash,
    doc: () => ({
      schema: { type: 'string', pattern: HASH_PATTERN },
      description: 'Transaction hash: 64 hexadecimal characters, any case.',
      example: 'f4a81d2f8b6b3ec4a9b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718',
    }),
  },
  heightOrHash: {
    parse: parseHeightOrHash,
    doc: () => ({
      schema: { type: 'string', pattern: HEIGHT_OR_HASH_PATTERN },
      description: 'Block height, or block hash (64 hexadecimal characters).',
      example: '4820298',
    }),
  },
  token: {
    parse: parseTokenName,
    doc: () => ({
      schema: { type: 'string', pattern: TOKEN_PATTERN },
      description: 'Token name (case-sensitive).',
      example: 'NAX',
    }),
  },
  flag: {
    parse: parseFlag,
    doc: () => ({
      schema: { type: 'boolean' },
      description: 'true or false (also 1 or 0, any letter case). Absent: the upstream default.',
      example: true,
    }),
  },
} satisfies Record<string, Kind>;

const spec = <N extends string>(name: N, kind: Kind, required = false, defaultValue?: string): ParamSpec<N> => ({
  name,
  required,
  defaultValue,
  parse: kind.parse,
  doc: kind.doc,
});

/** The parameters of the endpoint modules and pages. */
export const P = {
  page: spec('page', K.page, false, '1'),
  pageSize: spec('page_size', K.pageSize, false, '20'),
  days: (def: number): ParamSpec<'days'> => spec('days', K.days, false, String(def)),
  blockHeight: spec('block_height', K.height),
  address: spec('address', K.address, true),
  optAddress: <N extends string>(name: N): ParamSpec<N> => spec(name, K.address),
  hash: spec('hash', K.hash, true),
  h: spec('h', K.heightOrHash, true),
  token: spec('token', K.token, true),
  optToken: spec('token', K.token),
  isNrc20: spec('is_nrc20', K.flag),
} as const;
