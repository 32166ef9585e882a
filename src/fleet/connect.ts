/**
 * Builds the whole Redis side of a replica from REDIS_URL: one command
 * connection (cache tier, lease, bus publishing, rate-limit counters), one
 * subscriber connection (bus), the RedisStore, the FleetLease, the FleetBus
 * wired to the chain tracker, the record of recent touched sets, and the
 * `FleetCoordinator` the resolver uses, the leader duty (when asked), and the
 * heartbeat of the fleet's member list, which shows the duty's turn. Store,
 * lease and record share one breaker (the heartbeat has its own). Never
 * throws on a down Redis: everything degrades to "memory tier + upstream"
 * and resumes by itself.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { ChainTracker } from '../chain/tracker.js';
import type { RedisConfig } from '../config/types.js';
import type { Metrics, TierStats } from '../metrics/types.js';
import type { CacheEntry } from '../cache/types.js';
import { Breaker } from '../common/breaker.js';
import { closeRedis, createRedis, isReady, waitReady, type RedisClient } from '../redis/client.js';
import { RedisStore } from '../redis/redis-store.js';
import { FleetBus } from './bus.js';
import { connectTrackerToBus } from './tracker-bus.js';
import { FleetLease } from './lease.js';
import { FleetRecord } from './record.js';
import { FleetMembers } from './members.js';
import { VERSION } from '../config/version.js';
import type { FleetLink } from './link.js';
import { startFleetDuty, type FleetDuty } from './duty.js';
import { redisNamedLease } from './named-lease.js';

/** Fleet-wide single flight, as the resolver uses it: one replica leads a key's fetch, the others wait for its fill. */
export interface FleetCoordinator {
  acquire(key: string): Promise<boolean>;
  waitForFill(key: string): Promise<CacheEntry | undefined>;
  release(key: string): Promise<void>;
}

export interface FleetOptions {
  url: string;
  config: RedisConfig;
  tracker: ChainTracker;
  metrics: Metrics;
  logger: Logger;
  replicaId?: string;
  /** Entries and leases are keyed by it (fleetNamespace); absent: shared by every replica. */
  publicBaseUrl?: string;
  /** How often tierStats() is refreshed (INFO memory + DBSIZE). */
  statsIntervalMs?: number;
  /**
   * The leader duty over this Redis (its lease named per namespace), its turn shown in the member list; null or
   * absent: no duty, every member shown as 'replica'.
   */
  duty?: { intervalMs: number; onSelfProbe: () => void } | null;
  /** The replica's clock (entries' times and their judgement); absent: Date.now. */
  clock?: () => number;
}

export interface Fleet extends FleetLink {
  client: RedisClient;
  store: RedisStore;
  lease: FleetLease;
  bus: FleetBus;
  /** The namespace of entries and leases ('' when shared by every replica). */
  namespace: string;
  /** Recent touched sets, for replicas that join (src/fleet/record.ts). */
  record: FleetRecord;
  /** The fleet's members, from their heartbeats (src/fleet/members.ts). */
  members: FleetMembers;
  /** Who does the fleet's background work (src/fleet/duty.ts); null: not asked for. */
  duty: FleetDuty | null;
  coordinator: FleetCoordinator;
  healthy(): boolean;
  /** Last figures (refreshed in the background): entries = DBSIZE (all keys of the
   * database, not only entries), bytes = used_memory, maxBytes = maxmemory (unset when 0). */
  tierStats(): TierStats;
  close(): Promise<void>;
}

function infoField(info: string, field: string): number {
  const m = new RegExp(`^${field}:(\\d+)`, 'm').exec(info);
  return m?.[1] !== undefined ? Number(m[1]) : 0;
}

/**
 * The Redis namespace of a PUBLIC_BASE_URL: cached bodies carry next/previous
 * links built from it, so replicas that disagree on it must not share entries
 * (each would serve the other's links). `b<12 chars of sha1>:`.
 */
function fleetNamespace(publicBaseUrl: string): string {
  return `b${createHash('sha1').update(publicBaseUrl).digest('base64url').slice(0, 12)}:`;
}

export function connectFleet(opts: FleetOptions): Fleet {
  const { url, config, logger, metrics } = opts;
  let lastLog = 0;
  const onError = (role: string) => (err: Error) => {
    const now = Date.now();
    if (now - lastLog < 30_000) return;
    lastLog = now;
    logger.warn({ role, err: err.message }, 'redis connection error (tier degraded; retrying)');
  };
  const client = createRedis(url, config, { onError: onError('command') });
  const sub = createRedis(url, config, { role: 'subscriber', onError: onError('subscriber') });
  client.on('ready', () => logger.info('redis tier connected'));

  const breaker = new Breaker({ failures: config.breakerFailures, cooldownMs: config.breakerCooldownMs });
  const namespace = opts.publicBaseUrl === undefined ? undefined : fleetNamespace(opts.publicBaseUrl);
  const clock = opts.clock ?? Date.now;
  const store = new RedisStore({
    client,
    config,
    metrics,
    breaker,
    clock,
    ...(namespace !== undefined ? { namespace } : {}),
  });
  const bus = new FleetBus({
    pub: client,
    sub,
    keyPrefix: config.keyPrefix,
    metrics,
    ...(opts.replicaId !== undefined ? { replicaId: opts.replicaId } : {}),
  });
  const lease = new FleetLease({
    client,
    config,
    bus,
    metrics,
    breaker,
    ...(namespace !== undefined ? { namespace } : {}),
  });
  const record = new FleetRecord({ client, config, metrics, breaker });
  const disconnectTracker = connectTrackerToBus(opts.tracker, bus);
  const asked = opts.duty ?? null;
  const duty =
    asked === null
      ? null
      : startFleetDuty(
          { lease: redisNamedLease(client, config), name: `leader:${namespace ?? ''}`, bus },
          asked.intervalMs,
          asked.onSelfProbe,
          logger,
        );
  const members = new FleetMembers({
    client,
    config,
    replicaId: bus.replicaId,
    version: VERSION,
    namespace: namespace ?? '',
    publicBaseUrl: opts.publicBaseUrl ?? '',
    role: duty === null ? null : () => duty.turn(),
    clock,
    logger,
  });
  members.start();
  client.on('ready', () => void members.beat());

  let stats: TierStats = { tier: 'redis', entries: 0, bytes: 0 };
  const refresh = async () => {
    if (!isReady(client)) return;
    try {
      const [info, size] = await Promise.all([client.info('memory'), client.dbsize()]);
      const max = infoField(info, 'maxmemory');
      stats = {
        tier: 'redis',
        entries: size,
        bytes: infoField(info, 'used_memory'),
        maxBytes: max > 0 ? max : undefined,
      };
    } catch {
      // keep the last figures
    }
  };
  const timer = setInterval(() => void refresh(), opts.statsIntervalMs ?? 10_000);
  timer.unref();
  client.on('ready', () => void refresh());

  return {
    client,
    store,
    lease,
    bus,
    namespace: namespace ?? '',
    record,
    members,
    duty,
    coordinator: {
      acquire: (key) => lease.acquire(key),
      waitForFill: (key) => lease.waitForFill(key, store),
      release: (key) => lease.release(key),
    },
    healthy: () => store.healthy(),
    ready: async (timeoutMs) =>
      (await Promise.all([waitReady(client, timeoutMs), bus.ready(timeoutMs)])).every(Boolean),
    onReconnect(fn) {
      client.on('ready', fn);
      return () => void client.off('ready', fn);
    },
    tierStats: () => stats,
    async close() {
      clearInterval(timer);
      await members.leave();
      disconnectTracker();
      await bus.close();
      await closeRedis(sub);
      await closeRedis(client);
    },
  };
}
