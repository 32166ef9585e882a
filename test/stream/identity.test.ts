/**
 * The stream's per-client cap counts one client identity, the rate limiter's:
 * the address resolved through TRUST_PROXY, IPv6 grouped per /64, IPv4-mapped
 * IPv6 in any spelling the same client as its IPv4.
 */
import { describe, expect, it } from 'vitest';
import { clientIdentity } from '../../src/common/client-identity.js';
import { counter } from '../helpers/replica.js';
import { rig, streamConfig } from './kit.js';

const r = rig();

describe('one client identity', () => {
  it('maps every spelling of one client to one identity', () => {
    expect(clientIdentity('2001:db8:a:b:1::1')).toBe('2001:db8:a:b::/64');
    expect(clientIdentity('2001:DB8:A:B:ffff::2')).toBe('2001:db8:a:b::/64');
    expect(clientIdentity('2001:db8:a:c::1')).toBe('2001:db8:a:c::/64');
    for (const mapped of ['::ffff:203.0.113.7', '::FFFF:203.0.113.7', '::ffff:cb00:7107', '0:0:0:0:0:ffff:203.0.113.7'])
      expect(clientIdentity(mapped), mapped).toBe('203.0.113.7');
    expect(clientIdentity('203.0.113.7')).toBe('203.0.113.7');
    expect(clientIdentity('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('caps streams per /64 and per IPv4 whatever its spelling, the address resolved through TRUST_PROXY', async () => {
    const { proxy } = await r.start({ trustProxy: ['127.0.0.1'], stream: streamConfig({ maxPerClient: 1 }) });
    const open = async (xff: string): Promise<number> => {
      const c = await r.stream(proxy.url, { headers: { 'x-forwarded-for': xff } });
      if (c.status !== 200) await c.until(() => c.ended);
      return c.status;
    };
    expect(await open('2001:db8:a:b::1')).toBe(200);
    expect(await open('2001:db8:a:b:ffff::2')).toBe(429);
    expect(await open('2001:db8:a:c::1')).toBe(200);
    expect(await open('203.0.113.7')).toBe(200);
    expect(await open('::ffff:203.0.113.7')).toBe(429);
    expect(await open('::ffff:cb00:7107')).toBe(429);
    expect(await counter(proxy.url, 'chainproxy_stream_refused_total', { reason: 'per_client' })).toBe(3);
    expect(proxy.stream.hub.size).toBe(3);
  });
});
