/**
 * Stateless, seeded integer hashing. Every value of the simulated chain is a pure
 * function of (seed, domain, a, b, c); nothing is stored. 32-bit murmur3-style
 * finalisers over Math.imul: a few nanoseconds per call, no allocation.
 */

/** murmur3 fmix32. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Hash of up to four integers (each taken modulo 2^32, high bits folded in) under a seed. */
export function hash4(seed: number, a: number, b = 0, c = 0, d = 0): number {
  let h = mix32((seed ^ 0x9e3779b9) >>> 0);
  h = mix32((h ^ Math.imul((a >>> 0) ^ ((a / 4294967296) | 0), 0xcc9e2d51)) >>> 0);
  h = mix32((h + Math.imul((b >>> 0) ^ ((b / 4294967296) | 0), 0x1b873593)) >>> 0);
  h = mix32((h ^ Math.imul(c >>> 0, 0xe6546b64)) >>> 0);
  h = mix32((h + Math.imul(d >>> 0, 0x85ebca6b) + 0x7f4a7c15) >>> 0);
  return h;
}

const HEX: string[] = [];
for (let i = 0; i < 256; i++) HEX.push((i < 16 ? '0' : '') + i.toString(16));

/** 8 lowercase hex digits of a uint32. */
export function hex8(x: number): string {
  return HEX[(x >>> 24) & 255]! + HEX[(x >>> 16) & 255]! + HEX[(x >>> 8) & 255]! + HEX[x & 255]!;
}

/** `words` × 8 hex digits derived from (seed, domain, a, b): one keyed hash, then a counter-mode mix. */
export function hexWords(seed: number, domain: number, a: number, b: number, words: number, from = 0): string {
  const k = hash4(seed, domain, a, b);
  let s = '';
  for (let w = from; w < from + words; w++) s += hex8(mix32((k + Math.imul(w + 1, 0x9e3779b9)) >>> 0));
  return s;
}

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const B58_INDEX = new Int8Array(128).fill(-1);
for (let i = 0; i < B58.length; i++) B58_INDEX[B58.charCodeAt(i)] = i;

/** Fixed-width base58 of a non-negative integer < 58^width. */
export function b58Fixed(x: number, width: number): string {
  let s = '';
  for (let i = 0; i < width; i++) {
    s = B58[x % 58]! + s;
    x = Math.floor(x / 58);
  }
  return s;
}

/** Parses fixed-width base58; -1 on an invalid character. */
export function b58Parse(s: string, start: number, width: number): number {
  let x = 0;
  for (let i = start; i < start + width; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? B58_INDEX[c]! : -1;
    if (v < 0) return -1;
    x = x * 58 + v;
  }
  return x;
}

const B58_PAIRS: string[] = [];
for (let i = 0; i < 58 * 58; i++) B58_PAIRS.push(B58[Math.floor(i / 58)]! + B58[i % 58]!);

/** `n` base58 characters derived from hashes of (seed, domain, a); 5 characters per 32-bit word. */
export function b58Tail(seed: number, domain: number, a: number, n: number): string {
  const k = hash4(seed, domain, a, 0x5eed);
  let s = '';
  for (let w = 1; s.length < n; w++) {
    let x = mix32((k + Math.imul(w, 0x9e3779b9)) >>> 0);
    s += B58_PAIRS[x % 3364]!;
    x = (x / 3364) >>> 0;
    s += B58_PAIRS[x % 3364]!;
    x = (x / 3364) >>> 0;
    s += B58[x % 58]!;
  }
  return s.length === n ? s : s.slice(0, n);
}

/** Integer part as a string of digits: mantissa followed by `zeros` zeros ("0" when mantissa is 0). */
export function scaled(mantissa: number, zeros: number): string {
  if (mantissa === 0) return '0';
  return String(mantissa) + ZEROS.slice(0, zeros);
}
const ZEROS = '0'.repeat(64);
