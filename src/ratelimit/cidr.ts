/**
 * IP allowlist: addresses and CIDRs (IPv4 and IPv6; IPv4-mapped IPv6 clients
 * match IPv4 ranges) plus the names loopback, linklocal and uniquelocal. Used
 * once per new client bucket, never per request.
 */
import { isIP } from 'node:net';

const NAMED: Record<string, readonly string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

interface Range {
  bytes: Uint8Array;
  bits: number;
}

/** 16 bytes of an address (IPv4 as ::ffff:a.b.c.d), or null. */
export function ipBytes(ip: string): Uint8Array | null {
  const family = isIP(ip);
  if (family === 0) return null;
  const out = new Uint8Array(16);
  if (family === 4) {
    out[10] = 0xff;
    out[11] = 0xff;
    ip.split('.').forEach((p, i) => (out[12 + i] = Number(p)));
    return out;
  }
  let text = ip;
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  // A trailing dotted IPv4 part becomes two hextets.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups = rest === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  groups.forEach((g, i) => {
    const v = parseInt(g, 16);
    out[i * 2] = v >> 8;
    out[i * 2 + 1] = v & 0xff;
  });
  return out;
}

function parseRange(s: string): Range | null {
  const slash = s.indexOf('/');
  const ip = slash < 0 ? s : s.slice(0, slash);
  const bytes = ipBytes(ip);
  if (bytes === null) return null;
  const v4 = isIP(ip) === 4;
  const given = slash < 0 ? (v4 ? 32 : 128) : Number(s.slice(slash + 1));
  return { bytes, bits: v4 ? given + 96 : given };
}

function inRange(addr: Uint8Array, r: Range): boolean {
  let bits = r.bits;
  for (let i = 0; i < 16 && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((addr[i]! & mask) !== (r.bytes[i]! & mask)) return false;
  }
  return true;
}

export class IpAllowlist {
  readonly #ranges: Range[];

  /** Entries were validated with the config (isAddressOrCidr); anything else is ignored. */
  constructor(entries: readonly string[]) {
    this.#ranges = entries.flatMap((e) => NAMED[e] ?? [e]).flatMap((e) => parseRange(e) ?? []);
  }

  get empty(): boolean {
    return this.#ranges.length === 0;
  }

  has(ip: string): boolean {
    if (this.#ranges.length === 0) return false;
    const addr = ipBytes(ip);
    return addr !== null && this.#ranges.some((r) => inRange(addr, r));
  }
}

/**
 * The rate-limit identity of an address: IPv4 as is, IPv6 per /64 (one
 * subscriber usually holds a whole /64). IPv4-mapped IPv6 becomes IPv4.
 */
export function ipClientKey(ip: string): string {
  if (ip.indexOf(':') < 0) return ip;
  if (ip.startsWith('::ffff:') && ip.indexOf('.') > 0) return ip.slice(7);
  const b = ipBytes(ip);
  if (b === null) return ip;
  let s = '';
  for (let i = 0; i < 8; i += 2) s += `${((b[i]! << 8) | b[i + 1]!).toString(16)}:`;
  return `${s}:/64`;
}
