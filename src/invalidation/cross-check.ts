/**
 * Whether one reading of a block agrees with itself: its record
 * (`block/detail?h=N`), every page of `tx/list?block_height=N` and the hash
 * the proxy holds for that height. A touched set is complete only from a
 * reading that passes; anything else is a mismatch (the reader asks another
 * upstream, else the block falls back to the head rule).
 */

type Rec = Record<string, unknown>;

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** One block read: its record, and the data of each `tx/list` page in page order. */
export interface BlockVersion {
  block: Rec;
  pages: readonly Rec[];
}

/** The hash of a block record ('' when absent). */
export function hashOf(block: Rec): string {
  const h = block['block_hash'];
  return typeof h === 'string' ? h : '';
}

/**
 * Null when the reading of block `height` agrees with itself and with `known`
 * (the hash the proxy holds for that height; undefined: none), else what
 * disagrees. `pageSize`: the page size the pages were read with.
 */
export function mismatch(height: number, v: BlockVersion, known: string | undefined, pageSize: number): string | null {
  const { block, pages } = v;
  if (block['height'] !== height) return `block/detail answered height ${String(block['height'])}`;
  const hash = hashOf(block);
  if (hash === '') return 'block/detail without a hash';
  if (known !== undefined && known !== '' && known !== hash)
    return `hash ${hash} differs from ${known} in the block list`;
  const txCount = block['tx_count'];
  if (!isCount(txCount)) return 'block/detail without tx_count';
  const first = pages[0];
  if (first === undefined) return 'no tx/list page';
  const count = first['count'];
  const total = first['total_page'];
  if (!isCount(count) || !isCount(total)) return 'tx/list page without count or total_page';
  if (count !== txCount) return `tx/list count ${count}, block tx_count ${txCount}`;
  if (total !== Math.ceil(count / pageSize)) return `tx/list total_page ${total} for count ${count}`;
  if (pages.length !== Math.max(1, total)) return `${pages.length} tx/list pages read for total_page ${total}`;
  const seen = new Set<string>();
  for (let i = 0; i < pages.length; i++) {
    const p = pages[i]!;
    if (p['count'] !== count || p['total_page'] !== total)
      return `tx/list page ${i + 1} disagrees with page 1 on count or total_page`;
    const list = p['list'];
    if (!Array.isArray(list)) return `tx/list page ${i + 1} without a list`;
    const want = i + 1 < total ? pageSize : count - pageSize * i;
    if (list.length !== Math.max(0, want))
      return `tx/list page ${i + 1} lists ${list.length}, expected ${Math.max(0, want)}`;
    for (const tx of list as Rec[]) {
      if (tx['block_height'] !== height)
        return `tx/list page ${i + 1} lists a transaction of block ${String(tx['block_height'])}`;
      const h = tx['tx_hash'];
      if (typeof h !== 'string' || seen.has(h)) return `tx/list page ${i + 1} repeats or lacks a tx_hash`;
      seen.add(h);
    }
  }
  return null;
}
