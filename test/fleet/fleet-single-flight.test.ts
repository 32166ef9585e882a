/**
 * Fleet-wide single flight on one redis-server: 2 x 100 concurrent cold
 * requests for one key, split across two replicas, make exactly one upstream
 * request (test/helpers/fleet-single-flight.ts).
 */
import { fleetSingleFlight } from '../helpers/fleet-single-flight.js';
import { describeRedis, startRedisServer } from '../helpers/redis-server.js';

describeRedis()('fleet-wide single flight', () => {
  fleetSingleFlight(startRedisServer, 200);
});
