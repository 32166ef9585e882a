/**
 * The skew between fleet members' clocks, measured through Redis's at each
 * heartbeat: /status (valid against the OpenAPI document) shows each member's
 * skew from this replica, and a member past the bound is logged once.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { expect, it, onTestFinished } from 'vitest';
import { FleetMembers, SKEW_WARN_MS, type MembersView } from '../../src/fleet/members.js';
import { startSimulator } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { testConfig } from '../helpers/proxy.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { dataOf, get, startReplica } from '../helpers/replica.js';

const describe = describeRedis();
const HOUR = 3_600_000;
const HEARTBEAT_MS = 1000;

async function redisServer(): Promise<RedisServer> {
  const redis = await startRedisServer();
  onTestFinished(() => redis.stop());
  return redis;
}

const skewOf = (v: MembersView): number | null | undefined => v.members.find((m) => !m.self)?.skewMs;

describe('clock skew between fleet members', () => {
  it('/status shows each member’s skew from this replica', async () => {
    const [redis, sim] = await Promise.all([redisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })]);
    const patch = { redisUrl: redis.url, redis: { heartbeatMs: HEARTBEAT_MS } };
    const a = await startReplica([sim.url], patch);
    const b = await startReplica([sim.url], patch, () => Date.now() + HOUR);
    onTestFinished(async () => {
      await Promise.all([a.close(), b.close()]);
      await sim.close();
    });
    // B's skew is known to A once B has beaten twice (its offset is told from its second beat) and A once since.
    await waitFor(() => typeof skewOf(a.fleet!.members.view()) === 'number', 10_000, 'the skew measured');
    await waitFor(() => typeof skewOf(b.fleet!.members.view()) === 'number', 10_000, 'the skew measured by B');
    expect(Math.abs(skewOf(a.fleet!.members.view())! - HOUR)).toBeLessThan(2000);
    expect(Math.abs(skewOf(b.fleet!.members.view())! + HOUR)).toBeLessThan(2000);

    const body = (await get(a.url, '/status')).text;
    const fleet = dataOf(body)['fleet'] as MembersView;
    expect(fleet.members.find((m) => m.self)?.skewMs).toBe(0);
    expect(Math.abs(skewOf(fleet)! - HOUR)).toBeLessThan(2000);
    const doc = (await (await fetch(`${a.url}/openapi.json`)).json()) as object;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ ...doc, $id: 'urn:chainproxy:skew' });
    const validate = ajv.getSchema(
      'urn:chainproxy:skew#/paths/~1status/get/responses/200/content/application~1json/schema',
    )!;
    expect(validate(JSON.parse(body)), JSON.stringify(validate.errors)).toBe(true);
  });

  it('a member past the bound is logged once, and again after it came back within it', async () => {
    const redis = await redisServer();
    const config = testConfig([], { redisUrl: redis.url }).redis;
    const lines: string[] = [];
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      }),
    );
    let skew = 5 * SKEW_WARN_MS;
    const members = (id: string, clock: () => number, log: typeof logger | undefined) => {
      const client = new Redis(redis.url);
      onTestFinished(() => void client.disconnect());
      return new FleetMembers({
        client,
        config,
        replicaId: id,
        version: 'test',
        namespace: 'n:',
        publicBaseUrl: '',
        role: null,
        clock,
        ...(log !== undefined ? { logger: log } : {}),
      });
    };
    const self = members('self', () => Date.now(), logger);
    const other = members('other', () => Date.now() + skew, undefined);
    const beats = async () => {
      for (const m of [other, other, self]) await waitFor(() => m.beat(), 5000, 'a beat');
    };
    await beats();
    await beats();
    const warned = () => lines.filter((l) => l.includes('"replica":"other"')).length;
    expect(warned()).toBe(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ replica: 'other', boundMs: SKEW_WARN_MS });
    skew = 0;
    await beats();
    expect(warned()).toBe(1);
    skew = -5 * SKEW_WARN_MS;
    await beats();
    expect(warned()).toBe(2);
  });
});
