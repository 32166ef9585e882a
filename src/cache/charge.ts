/**
 * What a memory-tier entry costs: its buffers, each with the fixed cost of a
 * Buffer, the key, and the objects around them (entry, wrapper, payloads, LRU
 * slots), measured on Node 20, the JS objects with the collector's headroom
 * (bench/scenarios/m-flood.ts checks RSS against the bound).
 */
import type { CacheEntry } from './types.js';

/** Heap cost of one entry besides its buffers and key: CacheEntry, etag string, MemoryEntry, payloads, LRU slots. */
export const ENTRY_OVERHEAD_BYTES = 560;
/** Fixed cost of one Buffer of its own (typed array, ArrayBuffer, backing-store record). */
export const BUFFER_OVERHEAD_BYTES = 320;
/**
 * V8 lets the old generation grow to about twice its live size between major
 * collections, and a cache under a flood is mostly old generation: each byte
 * of JS objects an entry holds is charged this many times (buffer contents,
 * outside the JS heap, once).
 */
export const HEAP_HEADROOM = 2;
const STAMP_BYTES = 64;

/** Bytes charged for an entry: what it holds in memory, not only its payload. */
export function chargedSize(entry: CacheEntry, buffers: readonly (Buffer | null)[], stamped: boolean): number {
  let bytes = 0;
  let objects = 0;
  for (const b of buffers) {
    if (b === null) continue;
    bytes += b.length;
    objects += BUFFER_OVERHEAD_BYTES;
  }
  // A stamped entry also holds one re-rendered copy of each (same size ± a few digits).
  if (stamped) {
    bytes *= 2;
    objects *= 2;
  }
  // Keys are built by concatenation: the flat string plus the parts it was made of.
  objects += 2 * entry.key.length + entry.stamps.length * STAMP_BYTES + ENTRY_OVERHEAD_BYTES;
  return bytes + HEAP_HEADROOM * objects;
}
