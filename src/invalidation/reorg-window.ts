/**
 * The reorg window: the heights whose hash the reader watches, from the head
 * down to the newest block the chain's block list shows final (blocks below
 * it cannot be replaced). It follows the chain's finality depth as it
 * changes: the list is paged until a final block is listed, at most
 * WINDOW_MAX blocks (past that the window is cut, and counted). Every height
 * the reader recorded a hash for, whole or not, is watched in it; an unknown
 * hash ('': nothing was learnt about the block) counts as changed.
 */

type Rec = Record<string, unknown>;

/** Blocks listed at most per window (the first page of 20, then pages of 100). */
export const WINDOW_MAX = 300;

/** The newest blocks' hashes as the block list showed them. */
export interface RecentBlocks {
  hashes: ReadonlyMap<number, string>;
  /** The lowest height listed (null: none). */
  lowest: number | null;
  /** WINDOW_MAX stopped the paging before a final block was listed. */
  cut: boolean;
}

/** Pure: adds one page's rows to `into`; whether one of them is final. */
export function addRows(list: readonly unknown[], into: Map<number, string>): boolean {
  let final = false;
  for (const row of list) {
    if (typeof row !== 'object' || row === null) continue;
    const b = row as Rec;
    const h = b['height'];
    const hash = b['block_hash'];
    if (typeof h !== 'number' || !Number.isSafeInteger(h) || typeof hash !== 'string' || hash === '') continue;
    into.set(h, hash);
    if (b['is_finality'] === true) final = true;
  }
  return final;
}

/**
 * Pure: the heights to read again, oldest first, with the hash the list shows:
 * not final, a hash recorded (`seen`), and that hash differs or is unknown.
 */
export function changedHashes(
  recent: ReadonlyMap<number, string>,
  final: number | null,
  seen: (height: number) => string | undefined,
): [number, string][] {
  const out: [number, string][] = [];
  for (const [h, hash] of recent) {
    if (final !== null && h <= final) continue;
    const was = seen(h);
    if (was !== undefined && was !== hash) out.push([h, hash]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}
