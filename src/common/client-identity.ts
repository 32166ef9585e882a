/**
 * The one client identity behind every per-client limit (rate limit buckets,
 * the stream's per-client cap). Input is the address Fastify resolves
 * (`request.ip`: the socket address, or the X-Forwarded-For hop of a proxy in
 * TRUST_PROXY). IPv4 as is; IPv4-mapped IPv6 in any spelling becomes IPv4;
 * other IPv6 is grouped per /64 (one subscriber usually holds a whole /64).
 * (Allowlists are src/common/address-list.ts.)
 */
import { isIP } from 'node:net';

/** 16 bytes of an address (IPv4 as ::ffff:a.b.c.d), or null. */
function ipBytes(ip: string): Uint8Array | null {
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
    const hextet = (hi: number, lo: number): string => ((hi << 8) | lo).toString(16);
    text = `${text.slice(0, lastColon + 1)}${hextet(v4[0]!, v4[1]!)}:${hextet(v4[2]!, v4[3]!)}`;
  }
  const [head = '', rest] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups =
    rest === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  groups.forEach((g, i) => {
    const v = parseInt(g, 16);
    out[i * 2] = v >> 8;
    out[i * 2 + 1] = v & 0xff;
  });
  return out;
}

/** Whether bytes 0..11 are the IPv4-mapped prefix ::ffff:0:0/96. */
function isMapped(b: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/** The client an address belongs to, for every per-client limit. */
export function clientIdentity(ip: string): string {
  if (ip.indexOf(':') < 0) return ip;
  const b = ipBytes(ip);
  if (b === null) return ip;
  if (isMapped(b)) return `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  let s = '';
  for (let i = 0; i < 8; i += 2) s += `${((b[i]! << 8) | b[i + 1]!).toString(16)}:`;
  return `${s}:/64`;
}
