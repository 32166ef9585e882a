/**
 * A replica killed (SIGKILL: no clean leave) drops out of the fleet's member
 * list once its entry expires (three heartbeats): a replica started as an
 * operator runs it (`src/main.ts` in its own process) and one in this
 * process share a real redis-server; the survivor lists the killed one by
 * its pid, then no longer, and keeps beating.
 */
import { expect, it, onTestFinished } from 'vitest';
import type { MembersView } from '../../src/fleet/members.js';
import { startSimulator } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer } from '../helpers/redis-server.js';
import { counter, startReplica } from '../helpers/replica.js';
import { startProc } from '../process/kit.js';

const describe = describeRedis();
const HEARTBEAT_MS = 500;
const BASE = 'https://api.example.test';

describe('a killed replica', { timeout: 120_000 }, () => {
  it('leaves the member list after its expiry', async () => {
    const [redis, sim] = await Promise.all([
      startRedisServer(),
      startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 }),
    ]);
    const survivor = await startReplica([sim.url], {
      redisUrl: redis.url,
      publicBaseUrl: BASE,
      redis: { heartbeatMs: HEARTBEAT_MS },
    });
    onTestFinished(async () => {
      await survivor.close();
      await Promise.all([sim.close(), redis.stop()]);
    });
    const view = (): MembersView => survivor.fleet!.members.view();
    const p = startProc({
      REDIS_URL: redis.url,
      REDIS_HEARTBEAT_MS: String(HEARTBEAT_MS),
      UPSTREAM_URLS: sim.url,
      PUBLIC_BASE_URL: BASE,
      LOG_LEVEL: 'warn',
    });
    const pid = p.child.pid!;
    await waitFor(() => view().members.some((m) => m.pid === pid), 60_000, 'the child replica in the list');
    expect(view().members.find((m) => m.pid === pid)).toMatchObject({
      publicBaseUrl: BASE,
      sameNamespace: true,
      self: false,
    });
    expect(['leader', 'follower', 'alone']).toContain(view().members.find((m) => m.pid === pid)?.role);
    expect(await counter(survivor.url, 'chainproxy_fleet_members')).toBe(2);

    p.child.kill('SIGKILL');
    expect(await p.exited).toBeNull();
    await waitFor(() => !view().members.some((m) => m.pid === pid), 20_000, 'the killed replica gone');
    expect(view().members.map((m) => m.self)).toEqual([true]);
    expect(view().checkedAgoMs).not.toBeNull();
    expect(await counter(survivor.url, 'chainproxy_fleet_members')).toBe(1);
  });
});
