/**
 * Content negotiation for Accept-Encoding (RFC 9110 12.5.3): br > gzip >
 * identity among the codings the client accepts with the highest q. `q=0`
 * refuses a coding; `*` covers codings not listed. Runs on every hit, so the
 * answer for each distinct header string is memoized in a small bounded map.
 */
import type { Encoding } from './types.js';

const MEMO_MAX = 256;
const memo = new Map<string, Encoding>();

function parseQ(params: string[]): number {
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq < 0 || p.slice(0, eq).trim().toLowerCase() !== 'q') continue;
    const q = Number(p.slice(eq + 1).trim());
    return Number.isFinite(q) ? Math.min(1, Math.max(0, q)) : 0;
  }
  return 1;
}

interface Weights {
  br: number;
  gzip: number;
  identity: number;
}

function weigh(header: string): Weights {
  let br: number | undefined;
  let gzip: number | undefined;
  let identity: number | undefined;
  let star: number | undefined;
  for (const part of header.split(',')) {
    const [rawName = '', ...params] = part.split(';');
    const name = rawName.trim().toLowerCase();
    if (name === '') continue;
    const q = parseQ(params);
    if (name === 'br') br = Math.max(br ?? 0, q);
    else if (name === 'gzip' || name === 'x-gzip') gzip = Math.max(gzip ?? 0, q);
    else if (name === 'identity') identity = q;
    else if (name === '*') star = q;
  }
  // Identity is acceptable unless refused, but only preferred when asked for explicitly.
  return { br: br ?? star ?? 0, gzip: gzip ?? star ?? 0, identity: identity ?? (star === 0 ? 0 : 0.0001) };
}

const gzipOk = (w: Weights): boolean => w.gzip > 0 && w.gzip >= w.identity;

function negotiate(header: string): Encoding {
  const w = weigh(header);
  if (w.br > 0 && w.br >= w.gzip && w.br >= w.identity) return 'br';
  return gzipOk(w) ? 'gzip' : 'identity';
}

const gzipMemo = new Map<string, boolean>();

/**
 * Whether a client that prefers brotli takes gzip too (`gzip, deflate, br`, as
 * browsers send): its answer goes out gzip when the copy has no brotli variant
 * ready (a Redis hit carries gzip only), rather than identity.
 */
export function takesGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined || acceptEncoding === '') return false;
  const known = gzipMemo.get(acceptEncoding);
  if (known !== undefined) return known;
  const ok = gzipOk(weigh(acceptEncoding));
  if (acceptEncoding.length > 200) return ok;
  if (gzipMemo.size >= MEMO_MAX) gzipMemo.clear();
  gzipMemo.set(acceptEncoding, ok);
  return ok;
}

export function chooseEncoding(acceptEncoding: string | undefined): Encoding {
  if (acceptEncoding === undefined || acceptEncoding === '') return 'identity';
  const known = memo.get(acceptEncoding);
  if (known !== undefined) return known;
  const enc = negotiate(acceptEncoding);
  if (acceptEncoding.length > 200) return enc;
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(acceptEncoding, enc);
  return enc;
}
