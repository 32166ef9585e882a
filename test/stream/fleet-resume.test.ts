/**
 * The head stream's resume history is the fleet's (a Redis Stream): a resume
 * on another replica replays what was missed (test/stream/fleet-resume-kit.ts),
 * on one redis-server and on a three-master Redis Cluster.
 */
import { describeRedisCluster, startRedisCluster } from '../helpers/redis-cluster.js';
import { describeRedis, startRedisServer } from '../helpers/redis-server.js';
import { resumeAcrossReplicas } from './fleet-resume-kit.js';

describeRedis()('head stream resume across a fleet (Redis)', () => {
  resumeAcrossReplicas(startRedisServer);
});

describeRedisCluster()('head stream resume across a fleet (Redis Cluster)', () => {
  resumeAcrossReplicas(startRedisCluster, { commandTimeoutMs: 500 });
});
