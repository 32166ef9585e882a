/** The operator Host rule, and the operator lists swapped while the gates stay the same functions. */
import { describe, expect, it } from 'vitest';
import { OperatorAccess, operatorHost } from '../../src/http/admin-gate.js';

describe('operatorHost', () => {
  const names = new Set(['ops.example.net']);
  it.each([
    '10.0.0.1',
    '10.0.0.1:8080',
    '[::1]',
    '[::1]:8080',
    '[fd00::2]:1',
    'localhost',
    'localhost:8080',
    'LocalHost.',
    'ops.example.net',
    'OPS.EXAMPLE.NET.:80',
  ])('accepts %s', (host) => expect(operatorHost(host, names)).toBe(true));
  it.each([
    undefined,
    '',
    'rebind.example',
    'rebind.example:8080',
    'x.ops.example.net',
    'localhost.example',
    '10.0.0.1.nip.io',
    '[::1',
    '[10.0.0.1]',
    '[::1]:80x',
    '10.0.0.1:80:80',
    '10.0.0.1:',
    '::1',
  ])('refuses %s', (host) => expect(operatorHost(host, names)).toBe(false));
});

describe('OperatorAccess', () => {
  it('set() swaps the lists under the same gate functions', () => {
    const access = new OperatorAccess({ adminAllow: ['10.0.0.0/8'], purgeAllow: ['loopback'], adminHosts: [] });
    const { admin, purge } = access;
    const from = (ip: string, host: string) => ({ ip, headers: { host } });
    expect(admin(from('10.1.1.1', '10.0.0.5'))).toBe(true);
    expect(purge(from('10.1.1.1', '10.0.0.5'))).toBe(false);
    expect(purge(from('127.0.0.1', 'localhost'))).toBe(true);
    expect(admin(from('10.1.1.1', 'ops.example.net'))).toBe(false);
    access.set({ adminAllow: ['loopback'], purgeAllow: ['10.1.1.1'], adminHosts: ['ops.example.net'] });
    expect(admin(from('10.1.1.1', '10.0.0.5'))).toBe(false);
    expect(purge(from('10.1.1.1', 'ops.example.net'))).toBe(true);
    expect(purge(from('127.0.0.1', 'localhost'))).toBe(false);
  });
});
