/**
 * What replicas of a fleet tell each other, whatever carries it (Redis
 * pub/sub: bus.ts; the cluster primary over IPC: src/cluster/).
 */
import type { PendingTouched, TouchedSet } from '../chain/touched.js';

/**
 * One purge as the fleet shares it (src/purge/ makes and applies it): `at` is the purging replica's clock; a
 * replica that hears it takes its own time of hearing instead (src/purge/marks.ts `heardAt`).
 */
export interface PurgeMark {
  target: string;
  soft: boolean;
  at: number;
}

export interface FleetBusEvents {
  head: [height: number, final: boolean];
  filled: [key: string];
  touched: [set: TouchedSet, pending: PendingTouched];
  purge: [mark: PurgeMark];
  heads: [lease: string, heads: UpstreamHead[]];
  pool: [lease: string, state: PoolState];
  /** The leader's refreshed entries of one round (shared-entries.ts: base64 of the entry codec). */
  entries: [lease: string, entries: string[]];
  /** The subscriber is (again) subscribed. */
  subscribed: [];
}

/** One upstream's head as the leader's last probe saw it (id: a digest of its URL, the same on every replica). */
export interface UpstreamHead {
  id: string;
  head: number | null;
  ok: boolean;
  /** Ms since that probe answered (or failed), when the message was sent. */
  ageMs: number;
  /**
   * The body of that probe's answer (the head endpoint's upstream bytes), so followers serve the head the leader does.
   */
  answer?: string;
}

/** The leader's pending-pool poll: read or not, whether what lists the pool is stale, the newly seen transactions. */
export type PoolState = { known: false } | { known: true; stale: boolean; pending: PendingTouched };
