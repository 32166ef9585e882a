import { afterAll, beforeAll, expect, it } from 'vitest';
import { ChainTracker } from '../../src/chain/tracker.js';
import { FleetBus } from '../../src/fleet/bus.js';
import { connectTrackerToBus } from '../../src/fleet/tracker-bus.js';
import { closeRedis, createRedis, waitReady, type RedisClient } from '../../src/redis/client.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { redisTestConfig, sleep } from './fixtures.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { untilAny, untilEmitted, untilHead } from '../helpers/until.js';

const describe = describeRedis();

describe('FleetBus', () => {
  let server: RedisServer;
  const cfg = redisTestConfig();
  const clients: RedisClient[] = [];
  let a: FleetBus;
  let b: FleetBus;

  const makeBus = async (id: string) => {
    const pub = createRedis(server.url, cfg);
    const sub = createRedis(server.url, cfg, { role: 'subscriber' });
    clients.push(pub, sub);
    await waitReady(pub, 5000);
    const bus = new FleetBus({ pub, sub, keyPrefix: cfg.keyPrefix, replicaId: id });
    expect(await bus.ready()).toBe(true);
    return bus;
  };

  beforeAll(async () => {
    server = await startRedisServer();
    a = await makeBus('a');
    b = await makeBus('b');
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    for (const c of clients) await closeRedis(c);
    await server.stop();
  });

  it('delivers head messages to the other replica, not to the sender', async () => {
    const seenA: unknown[] = [];
    const seenB: unknown[] = [];
    a.on('head', (h, f) => seenA.push(['head', h, f]));
    b.on('head', (h, f) => seenB.push(['head', h, f]));
    await a.publish('head', 100, false);
    await a.publish('head', 90, true);
    await b.publish('head', 50, false);
    await untilAny(
      [
        [a, 'head'],
        [b, 'head'],
      ],
      () => seenB.length === 2 && seenA.length === 1,
      'the head messages',
    );
    await sleep(50);
    expect(seenB).toEqual([
      ['head', 100, false],
      ['head', 90, true],
    ]);
    expect(seenA).toEqual([['head', 50, false]]);
    a.removeAllListeners('head');
    b.removeAllListeners('head');
  });

  it('delivers filled notifications to every replica, the sender included', async () => {
    const got: string[] = [];
    a.on('filled', (k) => got.push(`a:${k}`));
    b.on('filled', (k) => got.push(`b:${k}`));
    await a.publish('filled', 'x');
    await untilAny(
      [
        [a, 'filled'],
        [b, 'filled'],
      ],
      () => got.length === 2,
      'both filled notifications',
    );
    expect(got.sort()).toEqual(['a:x', 'b:x']);
    a.removeAllListeners('filled');
    b.removeAllListeners('filled');
  });

  it('connects chain trackers without echo loops and survives a Redis restart', async () => {
    const ta = new ChainTracker();
    const tb = new ChainTracker();
    const offA = connectTrackerToBus(ta, a);
    const offB = connectTrackerToBus(tb, b);
    let headEventsA = 0;
    ta.on('head', () => headEventsA++);
    ta.observeHead(500);
    await untilHead(tb, (h) => h === 500);
    tb.observeHead(501);
    tb.observeFinal(480);
    await untilEmitted(ta, ['head', 'final'], () => ta.bestHead() === 501 && ta.finalHeight() === 480);
    await sleep(100);
    expect(headEventsA).toBe(2); // 500 locally, 501 from b; nothing echoed back

    await server.restart();
    await waitFor(
      async () => {
        ta.observeHead((ta.bestHead() ?? 0) + 1);
        await sleep(50);
        return tb.bestHead() === ta.bestHead();
      },
      10_000,
      'the bus back after the restart',
    );
    tb.observeHead(900);
    await untilHead(ta, (h) => h === 900, undefined, 5000);
    offA();
    offB();
  });

  it('drops malformed messages', async () => {
    const got: unknown[] = [];
    b.on('head', (h) => got.push(h));
    const pub = clients[0]!;
    await pub.publish(b.channel, 'not json');
    await pub.publish(b.channel, JSON.stringify({ v: 2, from: 'z', t: 'head', height: 1, final: false }));
    await pub.publish(b.channel, JSON.stringify({ v: 1, from: 'z', t: 'head', height: 'x', final: false }));
    await pub.publish(b.channel, JSON.stringify({ v: 1, from: 'z', t: 'head', height: 7, final: false }));
    await untilEmitted(b, 'head', () => got.length === 1, 'the one well-formed message');
    expect(got).toEqual([7]);
    b.removeAllListeners('head');
  });
});
