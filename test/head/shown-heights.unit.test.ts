/**
 * A height seen in an upstream's data (a block it shows) is a lower bound of
 * its head: it never withdraws that upstream's claim of a head far ahead, so
 * the claim is still refuted once the window passes. A head report within
 * reach does withdraw it (the upstream stopped claiming).
 */
import { describe, expect, it } from 'vitest';
import { HeadTrust } from '../../src/chain/head-trust.js';

const HEAD = 4_842_503;
const WINDOW = 1000;

function rig(): { trust: HeadTrust; refuted: string[]; advance(ms: number): void } {
  let now = 0;
  const refuted: string[] = [];
  const trust = new HeadTrust({ confirmWindowMs: WINDOW, clock: () => now, onRefuted: (s) => refuted.push(s) });
  trust.accepted(HEAD);
  return { trust, refuted, advance: (ms) => (now += ms) };
}

describe('heights shown in data against a claim far ahead', () => {
  it('blocks the liar shows below the head leave its repeated claim standing: refuted after the window', () => {
    const { trust, refuted, advance } = rig();
    expect(trust.report(HEAD, HEAD + 50_000, 'u2')).toBeNull();
    for (let i = 0; i < 15; i++) {
      advance(100);
      expect(trust.report(HEAD, HEAD - 3, 'u2', true)).toBe(HEAD - 3);
      // Its probes go on claiming (a liar a fixed distance ahead of a moving chain).
      if (i % 3 === 2) expect(trust.report(HEAD, HEAD + 50_000 + i, 'u2')).toBeNull();
      trust.report(HEAD, HEAD, 'u0');
      trust.report(HEAD, HEAD, 'u1');
    }
    expect(refuted).toEqual(['u2']);
  });

  it('a head report within reach withdraws the claim: nobody refuted', () => {
    const { trust, refuted, advance } = rig();
    trust.report(HEAD, HEAD + 50_000, 'u2');
    advance(100);
    trust.report(HEAD, HEAD, 'u2');
    for (let i = 0; i < 15; i++) {
      advance(100);
      trust.report(HEAD, HEAD, 'u0');
      trust.report(HEAD, HEAD, 'u1');
    }
    expect(refuted).toEqual([]);
  });
});
