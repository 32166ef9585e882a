/**
 * Client identity of an address for rate limiting: IPv4 as is, IPv6 grouped
 * per /64. (Allowlists are src/common/address-list.ts.)
 */
import { isIP } from 'node:net';

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
