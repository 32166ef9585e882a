/**
 * REDIS_URL=redis-cluster://…: the fleet-wide single flight (a SET NX PX
 * lease, compare-and-delete release, 'filled' notices) holds on a real
 * three-master cluster: 2 x 50 concurrent cold requests split across two
 * replicas make one upstream request (test/helpers/fleet-single-flight.ts).
 */
import { fleetSingleFlight } from '../helpers/fleet-single-flight.js';
import { describeRedisCluster, startRedisCluster } from '../helpers/redis-cluster.js';

describeRedisCluster()('Redis Cluster: fleet single flight', () => {
  fleetSingleFlight(startRedisCluster, 100, { commandTimeoutMs: 500 });
});
