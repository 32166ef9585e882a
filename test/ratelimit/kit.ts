/**
 * A whole replica for the rate-limit tests (not a test file): buildProxy on
 * port 0 with the limiter and, optionally, Redis, exposing the limiter so a
 * test can run a reconciliation round instead of waiting for the interval.
 */
import { pino } from 'pino';
import { buildProxy } from '../../src/app.js';
import { waitReady } from '../../src/redis/client.js';
import { testConfig, type ConfigPatch } from '../helpers/proxy.js';

export type LimitedReplica = Awaited<ReturnType<typeof buildProxy>> & { url: string };

export async function startLimitedReplica(
  upstreams: string[],
  patch: ConfigPatch,
  clock?: () => number,
): Promise<LimitedReplica> {
  const config = testConfig(upstreams, { ...patch, rateLimit: { enabled: true, ...patch.rateLimit } });
  const built = await buildProxy(config, { logger: pino({ level: 'silent' }), ...(clock ? { clock } : {}) });
  const url = await built.app.listen({ port: 0, host: '127.0.0.1' });
  if (built.fleet !== null && !(await waitReady(built.fleet.client, 5000))) throw new Error('redis not ready');
  await built.pool.firstProbe;
  return { ...built, url };
}
