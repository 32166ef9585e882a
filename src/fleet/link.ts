/**
 * What the replicas of a fleet share besides the cache tier, whatever carries
 * it: Redis (connect.ts) between machines, or the cluster primary over IPC
 * between the worker processes of one machine (src/cluster/worker-fleet.ts).
 * The block reader, the chain tracker and operator purges use only this.
 */
import type { TouchedSet } from '../chain/touched.js';
import type { FleetBusEvents, Kind, MessagePayload } from './messages.js';

/** Fleet messages of every kind in the table (messages.ts), whatever the transport. */
export interface Bus {
  on<K extends keyof FleetBusEvents>(event: K, listener: (...args: FleetBusEvents[K]) => void): unknown;
  off<K extends keyof FleetBusEvents>(event: K, listener: (...args: FleetBusEvents[K]) => void): unknown;
  /** Sends one message of `kind` to the fleet; true once the transport took it. */
  publish<K extends Kind>(kind: K, ...payload: MessagePayload<K>): Promise<boolean>;
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
