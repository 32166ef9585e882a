import { describe, expect, it } from 'vitest';
import { contractAddress, decodeAddress, decodeTxHash, normalAddress, txHash, blockHash } from '../../src/sim/index.js';
import { decodeBlockHash } from '../../src/sim/ids.js';
import { locateTx, txCountAt, txPrefix } from '../../src/sim/records/txcount.js';

describe('closed-form chain arithmetic', () => {
  it('txPrefix, txCountAt and locateTx agree', () => {
    for (const seed of [1, 99]) {
      let acc = txPrefix(seed, 4_000_000);
      for (let h = 4_000_000; h < 4_003_000; h++) {
        const n = txCountAt(seed, h);
        expect(n).toBeGreaterThanOrEqual(1);
        expect(locateTx(seed, acc)).toEqual([h, 0]);
        expect(locateTx(seed, acc + n - 1)).toEqual([h, n - 1]);
        acc += n;
        expect(txPrefix(seed, h + 1)).toBe(acc);
      }
    }
  });

  it('averages ~2.76 txs per block with bursts', () => {
    const total = txPrefix(1, 4_842_001);
    expect(total / 4_842_000).toBeGreaterThan(2.7);
    expect(total / 4_842_000).toBeLessThan(2.8);
    let max = 0;
    for (let h = 1; h < 20_000; h++) max = Math.max(max, txCountAt(1, h));
    expect(max).toBeGreaterThan(10);
  });

  it('hashes and addresses round-trip and reject foreign values', () => {
    for (const [h, i] of [
      [1, 0],
      [4_842_000, 17],
      [150_000_000, 4095],
    ] as const) {
      expect(decodeTxHash(7, txHash(7, h, i))).toEqual([h, i]);
      expect(decodeTxHash(8, txHash(7, h, i))).toBeUndefined();
      expect(decodeBlockHash(7, blockHash(7, h))).toBe(h);
    }
    for (const a of [0, 1, 17, 345_000, 5_000_000]) {
      const s = normalAddress(3, a);
      expect(s).toMatch(/^n1[1-9A-HJ-NP-Za-km-z]{33}$/);
      expect(decodeAddress(3, s)).toEqual({ kind: 'normal', index: a });
      expect(decodeAddress(4, s)).toBeUndefined();
    }
    expect(decodeAddress(3, contractAddress(3, 12))).toEqual({ kind: 'contract', index: 12 });
    expect(decodeAddress(1, 'n1d4wXxTVmK4rzyiN1vxhMuzxT441bxr8Fg')).toBeUndefined();
  });
});
