/**
 * What the replicas of a fleet share besides the cache tier, whatever carries
 * it: Redis (connect.ts) between machines, or the cluster primary over IPC
 * between the worker processes of one machine (src/cluster/worker-fleet.ts).
 * The block reader, the chain tracker and operator purges use only this.
 */
import type { PendingTouched, TouchedSet } from '../chain/touched.js';
import type { PurgeMark } from './messages.js';
import type { FleetBusEvents } from './messages.js';

/** Fleet messages: heads, touched sets and purges reach every other replica. */
export interface Bus {
  on<K extends keyof FleetBusEvents>(event: K, listener: (...args: FleetBusEvents[K]) => void): unknown;
  off<K extends keyof FleetBusEvents>(event: K, listener: (...args: FleetBusEvents[K]) => void): unknown;
  publishHead(height: number, final: boolean): Promise<void>;
  publishTouched(set: TouchedSet, pending: PendingTouched): Promise<void>;
  /** True once the transport took it. */
  publishPurge(mark: PurgeMark): Promise<boolean>;
}

export interface FleetLink {
  bus: Bus;
  /** A short lease on a job (`touched:block:N`): true when this replica does it. Never throws. */
  lease: { acquire(key: string): Promise<boolean> };
  /** Recent touched sets, for replicas that join (record.ts); absent `forgetAbove`: the record keeps them by height. */
  record: {
    read(): Promise<TouchedSet[] | null>;
    add(set: TouchedSet): Promise<void>;
    forgetAbove?(height: number): Promise<void>;
  };
  /** Resolves true once leases and messages flow, false after timeoutMs. */
  ready(timeoutMs: number): Promise<boolean>;
  /** Calls `fn` each time the transport is back after a gap; returns the way to stop. */
  onReconnect(fn: () => void): () => void;
}
