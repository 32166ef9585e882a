/**
 * The fleet's member list on a real redis-server: two replicas see each other
 * within one heartbeat, in /status (valid against the OpenAPI document) and
 * in the metrics; one that stops cleanly leaves at once; replicas with
 * different PUBLIC_BASE_URLs still see each other (the list is outside any
 * namespace) and each says the namespaces differ.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect, it, onTestFinished } from 'vitest';
import type { MembersView } from '../../src/fleet/members.js';
import { startSimulator } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer } from '../helpers/redis-server.js';
import { counter, dataOf, get, startReplica, type Replica } from '../helpers/replica.js';

const describe = describeRedis();
/** Entries live three beats (3 s): longer than a loaded test machine stalls timers. */
const HEARTBEAT_MS = 1000;

function view(r: Replica): MembersView {
  if (r.fleet === null) throw new Error('replica without Redis');
  return r.fleet.members.view();
}

const ids = (v: MembersView): string[] => v.members.map((m) => m.id).sort();

describe('the fleet member list', () => {
  /** Replicas on one redis-server and one simulator, all closed (replicas first) when the test ends. */
  async function fleetOf(baseUrls: string[]): Promise<Replica[]> {
    const [redis, sim] = await Promise.all([
      startRedisServer(),
      startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 }),
    ]);
    const replicas: Replica[] = [];
    onTestFinished(async () => {
      await Promise.all(replicas.map((r) => r.close()));
      await Promise.all([sim.close(), redis.stop()]);
    });
    for (const publicBaseUrl of baseUrls)
      replicas.push(
        await startReplica([sim.url], { redisUrl: redis.url, publicBaseUrl, redis: { heartbeatMs: HEARTBEAT_MS } }),
      );
    return replicas;
  }

  it(
    'two replicas see each other within a heartbeat, ' + 'in /status and the metrics; a clean stop leaves at once',
    async () => {
      const [a, b] = await fleetOf(['https://api.example.test', 'https://api.example.test']);
      // B's first beat found A's entry; A's next beat finds B's.
      await waitFor(() => view(a!).checkedAgoMs !== null && view(b!).checkedAgoMs !== null, 10_000, 'first beats');
      await waitFor(() => view(b!).members.length === 2, 10_000, 'B seeing A');
      const sinceB = Date.now();
      await waitFor(() => (view(a!).checkedAgoMs ?? Infinity) < Date.now() - sinceB, 10_000, "A's next beat");
      expect(ids(view(a!))).toEqual(ids(view(b!)));
      expect(ids(view(a!))).toEqual([view(a!).replicaId, view(b!).replicaId].sort());
      expect(view(a!).namespaceMismatch).toBe(false);

      const status = dataOf((await get(a!.url, '/status')).text);
      const fleet = status['fleet'] as MembersView;
      expect(fleet.heartbeatMs).toBe(HEARTBEAT_MS);
      expect(fleet.members).toHaveLength(2);
      expect(fleet.members.filter((m) => m.self).map((m) => m.id)).toEqual([view(a!).replicaId]);
      for (const m of fleet.members) {
        expect(['leader', 'follower', 'alone']).toContain(m.role);
        expect(m).toMatchObject({ publicBaseUrl: 'https://api.example.test', sameNamespace: true, pid: process.pid });
        expect(m.namespace).toMatch(/^b[\w-]{12}:$/);
        expect(m.lastSeenAgoMs).toBeGreaterThanOrEqual(0);
      }
      expect(await counter(a!.url, 'chainproxy_fleet_members')).toBe(2);
      expect(await counter(a!.url, 'chainproxy_fleet_namespace_mismatch')).toBe(0);

      const doc = (await (await fetch(`${a!.url}/openapi.json`)).json()) as object;
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      ajv.addSchema({ ...doc, $id: 'urn:chainproxy:members' });
      const validate = ajv.getSchema(
        'urn:chainproxy:members#/paths/~1status/get/responses/200/content/application~1json/schema',
      )!;
      expect(validate(JSON.parse((await get(a!.url, '/status')).text)), JSON.stringify(validate.errors)).toBe(true);

      // A clean stop removes the entry: B's next beat no longer lists A.
      const gone = view(a!).replicaId;
      await a!.close();
      expect(await b!.fleet!.members.beat()).toBe(true);
      expect(ids(view(b!))).not.toContain(gone);
      expect(await counter(b!.url, 'chainproxy_fleet_members')).toBe(1);
    },
  );

  it('replicas with different PUBLIC_BASE_URLs see each other and say the namespaces differ', async () => {
    const [a, b, a2] = await fleetOf(['https://a.example.test', 'https://b.example.test', 'https://a.example.test']);
    await waitFor(
      () => [a!, b!, a2!].every((r) => view(r).members.length === 3),
      10_000,
      'all three seeing each other',
    );
    for (const r of [a!, b!, a2!]) expect(view(r).namespaceMismatch).toBe(true);
    const fromA = view(a!).members;
    expect(fromA.find((m) => m.id === view(b!).replicaId)).toMatchObject({
      sameNamespace: false,
      publicBaseUrl: 'https://b.example.test',
    });
    expect(fromA.find((m) => m.id === view(a2!).replicaId)).toMatchObject({
      sameNamespace: true,
      publicBaseUrl: 'https://a.example.test',
    });
    expect(view(a!).namespace).toBe(view(a2!).namespace);
    expect(view(a!).namespace).not.toBe(view(b!).namespace);
    expect(await counter(b!.url, 'chainproxy_fleet_namespace_mismatch')).toBe(1);
    expect((dataOf((await get(a2!.url, '/status')).text)['fleet'] as MembersView).namespaceMismatch).toBe(true);

    // Once B is gone the other two agree again.
    await b!.close();
    await Promise.all([a!.fleet!.members.beat(), a2!.fleet!.members.beat()]);
    expect(view(a!).namespaceMismatch).toBe(false);
    expect(await counter(a2!.url, 'chainproxy_fleet_namespace_mismatch')).toBe(0);
  });
});
