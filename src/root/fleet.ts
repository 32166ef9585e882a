/**
 * The fleet builder: the Redis side (with the leader duty over its lease) or,
 * for a cluster worker, the machine's primary as bus, lease and /metrics; the
 * duty of a worker without Redis is held in the primary. Null parts: a single
 * process without Redis.
 */
import { connectWorkerFleet, type WorkerFleet } from '../cluster/worker-fleet.js';
import { connectFleet, type Fleet, type FleetCoordinator } from '../fleet/connect.js';
import { registerFleetMetrics, startFleetDuty, type FleetDuty } from '../fleet/duty.js';
import type { FleetLink } from '../fleet/link.js';
import { registerMemberMetrics } from '../fleet/member-metrics.js';
import type { Basics } from './basics.js';
import type { CacheStages } from './cache.js';
import type { ChainStages } from './chain.js';

export interface FleetStages {
  fleet: Fleet | null;
  /** This process is a cluster worker (WORKERS > 1); null: the only one. */
  workerFleet: WorkerFleet | null;
  /** Who does the fleet's background work; null: no fleet. */
  duty: FleetDuty | null;
  /** The bus and record the block reader shares (Redis's, else the primary's). */
  link: FleetLink | null;
  /** The fleet-wide single flight of the resolver and the passthrough cache. */
  coordinator: FleetCoordinator | null;
}

export function buildFleet(
  { config, logger, clock, prom }: Basics,
  { tracker }: ChainStages,
  { memory }: CacheStages,
  worker: number | null,
): FleetStages {
  const fleetMetrics = registerFleetMetrics(prom.registry);
  const fleet =
    config.redisUrl === null
      ? null
      : connectFleet({
          url: config.redisUrl,
          config: config.redis,
          tracker,
          metrics: prom.metrics,
          logger,
          publicBaseUrl: config.publicBaseUrl,
          duty: { intervalMs: config.upstream.probeIntervalMs, onSelfProbe: fleetMetrics.selfProbe },
          clock,
        });
  // A cluster worker: /metrics is the machine's (the primary merges every worker's); without Redis the primary is also
  // the bus and lease. Its fresh entries are lent once the resolver exists (`lendFrom`).
  const workerFleet =
    worker === null
      ? null
      : connectWorkerFleet({
          tracker: fleet === null ? tracker : null,
          peek: (key) => memory.peek(key)?.entry,
          render: prom.render,
          leaseMs: config.redis.leaseMs,
        });
  // The leader lease: in Redis for a fleet; in the cluster primary for the workers of one machine without it.
  const duty =
    fleet !== null
      ? fleet.duty
      : workerFleet === null
        ? null
        : startFleetDuty(workerFleet.duty, config.upstream.probeIntervalMs, fleetMetrics.selfProbe, logger);
  if (duty !== null) fleetMetrics.watch(duty);
  registerMemberMetrics(prom.registry, () => fleet?.members.view() ?? null);
  return {
    fleet,
    workerFleet,
    duty,
    link: fleet ?? workerFleet?.link ?? null,
    coordinator: fleet?.coordinator ?? workerFleet?.coordinator ?? null,
  };
}
