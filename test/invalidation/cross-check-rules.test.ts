/** The cross-check of one block's reading alone: each disagreement it catches, and a reading that agrees. */
import { describe, expect, it } from 'vitest';
import { mismatch, type BlockVersion } from '../../src/invalidation/cross-check.js';

const H = 100;
const tx = (i: number, height = H) => ({ tx_hash: `t${i}`, block_height: height });
const page = (count: number, list: unknown[]) => ({ count, total_page: Math.ceil(count / 2), list });
/** Three transactions on pages of two. */
const good = (): BlockVersion => ({
  block: { height: H, block_hash: 'h', tx_count: 3 },
  pages: [page(3, [tx(1), tx(2)]), page(3, [tx(3)])],
});

describe('cross-check of a block reading', () => {
  it('passes a reading that agrees with itself and with the known hash', () => {
    expect(mismatch(H, good(), undefined, 2)).toBeNull();
    expect(mismatch(H, good(), 'h', 2)).toBeNull();
  });

  it('catches every disagreement', () => {
    const cases: Array<[string, (v: BlockVersion) => BlockVersion, string | undefined]> = [
      ['another hash in the block list', (v) => v, 'other'],
      ['an empty list for a block with transactions', (v) => ({ ...v, pages: [page(0, [])] }), undefined],
      ['count against tx_count', (v) => ({ ...v, block: { ...v.block, tx_count: 4 } }), undefined],
      ['total_page against count', (v) => ({ ...v, pages: v.pages.map((p) => ({ ...p, total_page: 3 })) }), undefined],
      ['a short page', (v) => ({ ...v, pages: [page(3, [tx(1)]), page(3, [tx(3)])] }), undefined],
      ['a page missing', (v) => ({ ...v, pages: [v.pages[0]!] }), undefined],
      ['pages disagreeing on count', (v) => ({ ...v, pages: [v.pages[0]!, { ...v.pages[1]!, count: 4 }] }), undefined],
      [
        'a transaction of another block',
        (v) => ({ ...v, pages: [page(3, [tx(1), tx(2, H + 1)]), v.pages[1]!] }),
        undefined,
      ],
      ['a transaction listed twice', (v) => ({ ...v, pages: [page(3, [tx(1), tx(1)]), v.pages[1]!] }), undefined],
      ['a record of another height', (v) => ({ ...v, block: { ...v.block, height: H - 1 } }), undefined],
      ['a record without a hash', (v) => ({ ...v, block: { height: H, tx_count: 3 } }), undefined],
    ];
    for (const [what, change, known] of cases) expect(mismatch(H, change(good()), known, 2), what).not.toBeNull();
  });
});
