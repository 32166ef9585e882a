/**
 * Address lists of the settings (TRUST_PROXY's syntax): addresses, CIDRs and
 * the names loopback, linklocal and uniquelocal. IPv4-mapped IPv6 clients
 * (`::ffff:10.0.0.1`) match IPv4 entries; an IPv6 zone (`%eth0`) is ignored.
 * One implementation for ADMIN_ALLOW and RATE_LIMIT_ALLOW.
 */
import { BlockList, isIP } from 'node:net';

/** Named ranges, as TRUST_PROXY understands them (proxy-addr's names). */
export const NAMED_RANGES: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** The address to match: IPv4-mapped IPv6 unwrapped, zone dropped. */
function plainAddress(ip: string): string {
  const v4 = MAPPED_V4.exec(ip)?.[1];
  if (v4 !== undefined) return v4;
  const zone = ip.indexOf('%');
  return zone < 0 ? ip : ip.slice(0, zone);
}

export class AddressList {
  readonly #list = new BlockList();
  readonly empty: boolean;

  /** Entries were validated with the config; anything unparsable is ignored. */
  constructor(entries: readonly string[]) {
    const expanded = entries.flatMap((e) => NAMED_RANGES[e] ?? [e]);
    let added = 0;
    for (const entry of expanded) {
      const slash = entry.indexOf('/');
      const ip = slash < 0 ? entry : entry.slice(0, slash);
      const family = isIP(ip);
      if (family === 0) continue;
      const type = family === 6 ? 'ipv6' : 'ipv4';
      if (slash < 0) this.#list.addAddress(ip, type);
      else this.#list.addSubnet(ip, Number(entry.slice(slash + 1)), type);
      added++;
    }
    this.empty = added === 0;
  }

  has(ip: string): boolean {
    if (this.empty) return false;
    const addr = plainAddress(ip);
    const family = isIP(addr);
    return family !== 0 && this.#list.check(addr, family === 6 ? 'ipv6' : 'ipv4');
  }
}
