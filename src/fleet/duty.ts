/**
 * Who does the fleet's background work (head probes, the pending-pool poll,
 * refresh-ahead of hot entries) right now, and how the others follow:
 *
 *   leader    holds the leader lease (leader.ts): does the work, publishes
 *             every upstream's head after its probes change one and at least
 *             every half probe interval ('heads', also its heartbeat), and
 *             each pending-pool poll ('pool')
 *   follower  does none of it: heads come from the bus ('head' for the
 *             tracker, 'heads' for each upstream's head and probe result, which
 *             selection and readiness use), the pool's state from 'pool', the
 *             refreshed entries from the Redis tier
 *   alone     a follower that has heard no heartbeat for longer than a probe
 *             interval (leader dead, bus or Redis down): does the work itself
 *             (self probes counted) until the bus speaks again
 *
 * Only heartbeats of this replica's own leader lease count (replicas with
 * another namespace have their own leader). Breakers and latency stay per
 * replica: each learns them from its own requests.
 *
 * The lease and the bus are Redis's for a fleet of replicas, or the cluster
 * primary's (src/cluster/) for the workers of one machine without Redis.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { counter, gauge } from '../metrics/declare.js';
import type { Bus } from './link.js';
import type { PoolState, UpstreamHead } from './messages.js';
import { FleetLeader } from './leader.js';
import { encodeShared } from './shared-entries.js';
import type { CacheEntry } from '../cache/types.js';
import type { NamedLease } from './named-lease.js';

export type Turn = 'leader' | 'follower' | 'alone';

export interface FleetDutyOptions {
  leader: FleetLeader;
  bus: Bus;
  /** The leader lease's name: heartbeats of other leases are ignored. */
  lease: string;
  /** The probe interval: longest silence a follower waits, and twice the heartbeat period. */
  intervalMs: number;
  /** A follower probed on its own (the metric). */
  onSelfProbe: () => void;
  /** Monotonic ms (default performance.now). */
  clock?: () => number;
}

export class FleetDuty {
  readonly #o: FleetDutyOptions;
  readonly #clock: () => number;
  #heardAt: number;
  #snapshot: () => UpstreamHead[] = () => [];
  #intervals: () => number[] = () => [];
  #lastKey = '';
  #timer: NodeJS.Timeout | null = null;
  readonly #unsubscribe: () => void;

  constructor(o: FleetDutyOptions) {
    this.#o = o;
    this.#clock = o.clock ?? (() => performance.now());
    // A new replica waits one interval for a heartbeat before acting alone.
    this.#heardAt = this.#clock();
    const onHeads = (lease: string): void => {
      if (lease === o.lease) this.#heardAt = this.#clock();
    };
    o.bus.on('heads', onHeads);
    // Silence counts from when this replica could hear (the first subscribe, or again after a reconnect).
    const onSubscribed = (): void => {
      this.#heardAt = this.#clock();
    };
    o.bus.on('subscribed', onSubscribed);
    const beat = (): void => {
      if (o.leader.isLeader()) this.#sendHeads(this.#snapshot());
    };
    this.#timer = setInterval(beat, Math.max(1, Math.floor(o.intervalMs / 2)));
    this.#timer.unref();
    o.leader.on('gained', beat);
    this.#unsubscribe = () => {
      o.bus.off('heads', onHeads);
      o.bus.off('subscribed', onSubscribed);
      o.leader.off('gained', beat);
    };
  }

  /** This replica holds the leader lease. */
  isLeader(): boolean {
    return this.#o.leader.isLeader();
  }

  /** Times this replica gained or lost the leader lease. */
  get changes(): number {
    return this.#o.leader.changes;
  }

  turn(): Turn {
    if (this.#o.leader.isLeader()) return 'leader';
    return this.#clock() - this.#heardAt > this.#o.intervalMs ? 'alone' : 'follower';
  }

  /** This replica does the background work now (leader, or alone). */
  readonly acting = (): boolean => this.turn() !== 'follower';

  /** A follower probed on its own. */
  selfProbe(): void {
    this.#o.onSelfProbe();
  }

  /** The leader's heads, with its recent block intervals when it has any (older replicas ignore them). */
  #sendHeads(heads: UpstreamHead[]): void {
    const intervals = this.#intervals();
    if (intervals.length === 0) void this.#o.bus.publish('heads', this.#o.lease, heads);
    else void this.#o.bus.publish('heads', this.#o.lease, heads, intervals);
  }

  /**
   * This replica probed: `snapshot` gives every upstream's head now, `intervals`
   * the recent block intervals; the leader publishes them when a head or probe
   * result changed (and on every heartbeat).
   */
  probed(snapshot: () => UpstreamHead[], intervals: () => number[] = () => []): void {
    this.#snapshot = snapshot;
    this.#intervals = intervals;
    const heads = snapshot();
    const key = heads.map((h) => `${h.id}:${h.head}:${h.ok}`).join(',');
    if (key === this.#lastKey) return;
    this.#lastKey = key;
    if (this.#o.leader.isLeader()) this.#sendHeads(heads);
  }

  /** The leader's heads for each upstream (and its block intervals, if sent), while this replica follows. */
  onHeads(apply: (heads: UpstreamHead[], intervals: number[] | undefined) => void): void {
    this.#o.bus.on('heads', (lease, heads, intervals) => {
      if (lease === this.#o.lease && !this.acting()) apply(heads, intervals);
    });
  }

  /** The leader's pending-pool poll goes to the followers. */
  sharePool(state: PoolState): void {
    if (this.#o.leader.isLeader()) void this.#o.bus.publish('pool', this.#o.lease, state);
  }

  /** The leader's refreshed entries go to the followers (shared-entries.ts). */
  shareEntries(entries: readonly CacheEntry[]): void {
    if (!this.#o.leader.isLeader()) return;
    void encodeShared(entries).then((encoded) =>
      encoded.length === 0 ? undefined : this.#o.bus.publish('entries', this.#o.lease, encoded),
    );
  }

  /** The leader's refreshed entries, while this replica follows. */
  onEntries(apply: (encoded: string[]) => void): void {
    this.#o.bus.on('entries', (lease, encoded) => {
      if (lease === this.#o.lease && !this.acting()) apply(encoded);
    });
  }

  /** The leader's pending-pool polls, while this replica follows. */
  onPool(apply: (state: PoolState) => void): void {
    this.#o.bus.on('pool', (lease, state) => {
      if (lease === this.#o.lease && !this.acting()) apply(state);
    });
  }

  /** Stops; a leader releases its lease. */
  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#unsubscribe();
    await this.#o.leader.close();
  }
}

export interface DutyTransport {
  /** Where the leader lease is held (Redis, or the cluster primary). */
  lease: NamedLease;
  /** The lease's name: one leader per name (per namespace with Redis). */
  name: string;
  bus: Bus;
}

/**
 * The duty of a replica, its leader lease taken for 1.5 probe intervals,
 * renewed every half interval, tried by followers every quarter interval, so
 * a dead leader is replaced within 1.75 intervals.
 */
export function startFleetDuty(
  t: DutyTransport,
  intervalMs: number,
  onSelfProbe: () => void,
  logger: Pick<Logger, 'info'>,
): FleetDuty {
  const leader = new FleetLeader({
    lease: t.lease,
    name: t.name,
    ttlMs: Math.ceil(intervalMs * 1.5),
    renewMs: Math.ceil(intervalMs / 2),
    tryMs: Math.ceil(intervalMs / 4),
  });
  const duty = new FleetDuty({ leader, bus: t.bus, lease: t.name, intervalMs, onSelfProbe });
  leader.on('gained', () => logger.info({ lease: t.name }, 'fleet leader: this replica does the background work'));
  leader.on('lost', () => logger.info({ lease: t.name }, 'fleet leader: this replica follows'));
  leader.start();
  return duty;
}

/**
 * The fleet metrics (registered with or without a fleet; without one, and
 * not a cluster worker, the replica holds no lease and they stay 0): chainproxy_fleet_leader,
 * chainproxy_fleet_leader_changes_total, chainproxy_fleet_self_probes_total.
 */
export function registerFleetMetrics(registry: Registry): { selfProbe: () => void; watch: (duty: FleetDuty) => void } {
  let watched: FleetDuty | null = null;
  gauge(registry, 'fleet_leader', (g) => g.set(watched?.isLeader() === true ? 1 : 0));
  counter(registry, 'fleet_leader_changes_total', { total: () => watched?.changes ?? 0 });
  const self = counter(registry, 'fleet_self_probes_total');
  return {
    selfProbe: () => self.inc(),
    watch: (duty) => {
      watched = duty;
    },
  };
}
