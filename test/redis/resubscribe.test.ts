/**
 * The bus's subscriber after a reconnect, against a real redis-server: it
 * subscribes again (a message published after the restart arrives), and a
 * connection closed before that SUBSCRIBE is answered leaves no unhandled
 * rejection (ioredis' own re-subscribe left one: "Connection is closed",
 * which ends a Node.js process at shutdown).
 */
import { EventEmitter } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FleetBus } from '../../src/fleet/bus.js';
import { closeRedis, createRedis, waitReady, type RedisClient } from '../../src/redis/client.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { redisTestConfig } from './fixtures.js';
import { untilAny, untilEmitted } from '../helpers/until.js';

const describe = describeRedis();

describe('the bus subscriber after a reconnect', () => {
  let server: RedisServer;
  const cfg = redisTestConfig();
  const clients: RedisClient[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const c of clients) await closeRedis(c);
    await server.stop();
  });

  async function bus(id: string): Promise<{ bus: FleetBus; pub: RedisClient; sub: RedisClient }> {
    const pub = createRedis(server.url, cfg);
    const sub = createRedis(server.url, cfg, { role: 'subscriber' });
    clients.push(pub, sub);
    await waitReady(pub, 5000);
    const b = new FleetBus({ pub, sub, keyPrefix: cfg.keyPrefix, replicaId: id });
    expect(await b.ready()).toBe(true);
    return { bus: b, pub, sub };
  }

  it('subscribes again: a head published after the restart arrives', async () => {
    const a = await bus('a');
    const b = await bus('b');
    await server.restart();
    await untilAny(
      [
        [a.sub, 'ready'],
        [b.pub, 'ready'],
      ],
      () => a.sub.status === 'ready' && b.pub.status === 'ready',
      'both reconnected',
    );
    const heard: number[] = [];
    a.bus.on('head', (h: number) => void heard.push(h));
    await waitFor(
      async () => {
        await b.bus.publish('head', 4_842_100, false);
        return heard.includes(4_842_100);
      },
      20_000,
      'the head heard after the restart',
    );
  });

  it('closed before the new SUBSCRIBE is answered: no unhandled rejection', async () => {
    // Between the subscriber and the server, a relay that, once told, drops every SUBSCRIBE it sees: the
    // re-subscribe after the restart is never answered, so closing the client rejects it.
    let dropping = false;
    let dropped = 0;
    // Told as the relay drops a SUBSCRIBE.
    const drops = new EventEmitter();
    const relay = createServer((client) => {
      const upstream = connect(server.port, '127.0.0.1');
      client.on('data', (d: Buffer) => {
        if (dropping && /subscribe/i.test(d.toString('latin1'))) {
          dropped++;
          drops.emit('drop');
        } else upstream.write(d);
      });
      upstream.on('data', (d: Buffer) => client.write(d));
      const end = (): void => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    const unhandled: unknown[] = [];
    const record = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const pub = createRedis(server.url, cfg);
      const sub = createRedis(`redis://127.0.0.1:${(relay.address() as AddressInfo).port}`, cfg, {
        role: 'subscriber',
      });
      clients.push(pub, sub);
      await waitReady(pub, 5000);
      const b = new FleetBus({ pub, sub, keyPrefix: cfg.keyPrefix, replicaId: 'c' });
      expect(await b.ready()).toBe(true);
      dropping = true;
      await server.restart();
      await untilEmitted(drops, 'drop', () => dropped > 0, 'a SUBSCRIBE after the restart');
      sub.disconnect();
      await untilEmitted(sub, 'end', () => sub.status === 'end', 'the subscriber closed');
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      expect(unhandled.map(String)).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
      await new Promise((r) => relay.close(r));
    }
  });
});
