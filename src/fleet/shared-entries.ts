/**
 * The leader's refreshed entries, sent to the followers on the bus with the
 * round that made them, so every replica serves a block's changes when the
 * leader does, whether the fleet shares a tier (Redis) or none (the workers of
 * one machine). Entries travel in the shared tier's codec, uncompressed,
 * base64; a round sends at most MAX_ROUND_BYTES (the rest reach followers
 * through the shared tier or their own miss).
 *
 * A follower installs an entry in its memory tier when it is fresh by its own
 * judgement and newer than its own copy; it never writes the shared tier (the
 * leader did). Judged by the follower's clock (codec.ts: never younger than
 * the leader's age of it when sent), whatever the leader's clock says.
 */
import type { CacheEntry } from '../cache/types.js';
import { decodeEntry, encodeEntry } from '../redis/codec.js';

/** Bytes of encoded entries one round sends. */
export const MAX_ROUND_BYTES = 512 * 1024;

/** `entries` encoded for the bus, in order, until MAX_ROUND_BYTES. */
export async function encodeShared(entries: readonly CacheEntry[]): Promise<string[]> {
  const out: string[] = [];
  let bytes = 0;
  for (const e of entries) {
    const text = (await encodeEntry(e, Number.POSITIVE_INFINITY)).toString('base64');
    if (bytes + text.length > MAX_ROUND_BYTES) continue;
    bytes += text.length;
    out.push(text);
  }
  return out;
}

/**
 * Offers each entry a round sent to `offer` (Resolver.offer: taken when fresh
 * here and made later than this replica's copy); returns how many were taken.
 * `clock`: this replica's, that judges them (absent: as sent).
 */
export async function installShared(
  encoded: readonly string[],
  offer: (e: CacheEntry) => boolean,
  clock?: () => number,
): Promise<number> {
  let taken = 0;
  for (const text of encoded) {
    const e = decodeEntry(Buffer.from(text, 'base64'), clock === undefined ? undefined : { now: clock() });
    if (e !== undefined && offer(e)) taken++;
  }
  return taken;
}
