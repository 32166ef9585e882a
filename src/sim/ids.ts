/**
 * Identifiers that decode back to their position in the chain:
 *  - tx hash: 64 hex; the first 10 hex digits are a seed-keyed Feistel permutation of
 *    id = height * 4096 + index (40 bits), the remaining 54 a keyed hash of id. Decoding
 *    inverts the permutation and verifies the tail, so foreign hashes are "not found".
 *  - block hash: the same construction in another domain over id = height.
 *  - address: "n1"/"n2" + 5 base58 digits of a keyed bijection of the index + 28 keyed base58 digits
 *    (35 characters, the Nebulas form). n1 = normal address space, n2 = contract space.
 */
import { b58Fixed, b58Parse, b58Tail, hash4, hex8, hexWords, mix32 } from './rng.js';

const D_TX = 0x7478;
const D_BLOCK = 0x626c;
const D_NORMAL = 0x6e31;
const D_CONTRACT = 0x6e32;

function feistel(seed: number, domain: number, x: number, inverse: boolean): number {
  let l = Math.floor(x / 1048576) & 0xfffff;
  let r = x & 0xfffff;
  const key = hash4(seed, domain, 0xfe);
  if (!inverse) {
    for (let k = 0; k < 4; k++) {
      const t = l ^ (mix32((Math.imul(r + k * 0x632be5ab, 0x9e3779b1) ^ key) >>> 0) & 0xfffff);
      l = r;
      r = t;
    }
  } else {
    for (let k = 3; k >= 0; k--) {
      const t = r ^ (mix32((Math.imul(l + k * 0x632be5ab, 0x9e3779b1) ^ key) >>> 0) & 0xfffff);
      r = l;
      l = t;
    }
  }
  return l * 1048576 + r;
}

function hex10(x: number): string {
  return hex8(Math.floor(x / 256)) + hex8(x & 255).slice(6);
}

function idHash(seed: number, domain: number, id: number): string {
  const head = hex10(feistel(seed, domain, id, false));
  // 54 hex digits of tail: 6 words + 6 digits
  return head + hexWords(seed, domain, id, 1, 7).slice(0, 54);
}

function idDecode(seed: number, domain: number, hash: string): number {
  if (hash.length !== 64 || !/^[0-9a-f]{64}$/.test(hash)) return -1;
  const id = feistel(seed, domain, parseInt(hash.slice(0, 10), 16), true);
  return idHash(seed, domain, id) === hash ? id : -1;
}

const MAX_TX_INDEX = 4096;

export function txHash(seed: number, height: number, index: number): string {
  return idHash(seed, D_TX, height * MAX_TX_INDEX + index);
}

/** Decodes a tx hash into [height, index], or undefined when it was not made by this seed. */
export function decodeTxHash(seed: number, hash: string): [number, number] | undefined {
  const id = idDecode(seed, D_TX, hash);
  if (id < 0) return undefined;
  return [Math.floor(id / MAX_TX_INDEX), id % MAX_TX_INDEX];
}

export function blockHash(seed: number, height: number): string {
  return idHash(seed, D_BLOCK, height);
}

export function decodeBlockHash(seed: number, hash: string): number {
  return idDecode(seed, D_BLOCK, hash);
}

const M29 = 0x1fffffff;
const MUL = 0x2545f491; // odd ⇒ bijective modulo 2^29
function inverseOdd(a: number): number {
  let x = a; // Newton iteration for the inverse modulo 2^32
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(a, x));
  return x;
}
const MUL_INV = inverseOdd(MUL);

function permute(seed: number, domain: number, a: number): number {
  return (Math.imul((a ^ hash4(seed, domain, 0xadd)) & M29, MUL) & M29) >>> 0;
}
function unpermute(seed: number, domain: number, y: number): number {
  return ((Math.imul(y, MUL_INV) & M29) ^ (hash4(seed, domain, 0xadd) & M29)) >>> 0;
}

const ADDR_RE = /^n[12][1-9A-HJ-NP-Za-km-z]{33}$/;

export function isAddress(s: string): boolean {
  return ADDR_RE.test(s);
}

function encodeAddress(seed: number, domain: number, prefix: string, a: number): string {
  return prefix + b58Fixed(permute(seed, domain, a), 5) + b58Tail(seed, domain, a, 28);
}

export function normalAddress(seed: number, a: number): string {
  return encodeAddress(seed, D_NORMAL, 'n1', a);
}

export function contractAddress(seed: number, j: number): string {
  return encodeAddress(seed, D_CONTRACT, 'n2', j);
}

/** Decodes an address of this seed: {kind, index}, or undefined for foreign/unknown addresses. */
export function decodeAddress(seed: number, s: string): { kind: 'normal' | 'contract'; index: number } | undefined {
  if (!ADDR_RE.test(s)) return undefined;
  const kind = s.charCodeAt(1) === 49 ? 'normal' : 'contract';
  const domain = kind === 'normal' ? D_NORMAL : D_CONTRACT;
  const y = b58Parse(s, 2, 5);
  if (y < 0 || y > M29) return undefined;
  const a = unpermute(seed, domain, y);
  if (encodeAddress(seed, domain, s.slice(0, 2), a) !== s) return undefined;
  return { kind, index: a };
}
