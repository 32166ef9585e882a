/**
 * Frames of the activity stream. A block event's `txs` are the kept records
 * that name one of the subscriber's entities, as the upstream wrote them; the
 * frame is made once per distinct set of matched entities in a block.
 */
import { eventFrame } from '../frames.js';
import type { BlockRecord } from './history.js';

/**
 * `id: <height>` and `data: {"height","block_hash","complete","txs"}`
 * for the entities `mine` (those of one subscriber the block names).
 */
export function activityFrame(r: BlockRecord, mine: ReadonlySet<string>): Buffer {
  const txs: string[] = [];
  for (const t of r.txs) if (t.names.some((n) => mine.has(n))) txs.push(t.bytes.toString('utf8'));
  return eventFrame(
    r.height,
    `{"height":${r.height},"block_hash":${JSON.stringify(r.hash)},"complete":${r.complete},"txs":[${txs.join(',')}]}`,
  );
}

/** A bare `id:` (no data, no event dispatched): sets the client's resume point to `height`. */
export function positionFrame(height: number): Buffer {
  return Buffer.from(`id: ${height}\n\n`);
}

/**
 * `event: pending`, no id (pending transactions are not replayed):
 * new pool transactions that name the subscriber's entities.
 */
export function pendingFrame(
  hashes: readonly string[],
  addresses: readonly string[],
  contracts: readonly string[],
): Buffer {
  return Buffer.from(`event: pending\ndata: ${JSON.stringify({ hashes, addresses, contracts })}\n\n`);
}

/** The opening comment. */
export const ACTIVITY_OPEN_FRAME = Buffer.from(': chainproxy activity stream\n\n');
