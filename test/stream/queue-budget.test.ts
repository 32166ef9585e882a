/**
 * What slow readers hold is bounded in total, not only per subscriber:
 * subscribers that stop reading, each well within its own
 * STREAM_MAX_BUFFER_BYTES, are disconnected (the one holding most first) once
 * what all of them queue would pass STREAM_MAX_BUFFER_TOTAL_BYTES (reason
 * "total"); what they queued is given back, and a subscriber that reads (and
 * may be briefly behind) gets every head.
 */
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { counter } from '../helpers/replica.js';
import { rig, streamConfig, untilFeed, untilHub, waitFor } from './kit.js';

const r = rig();
const TOTAL = 96 * 1024;

describe('stream queues, all subscribers together', () => {
  it(
    'disconnects the slow readers, largest first, ' +
      'once what they queue together would pass STREAM_MAX_BUFFER_TOTAL_BYTES, and gives it back',
    async () => {
      const { sim, proxy } = await r.start({
        stream: streamConfig({ maxBufferBytes: 4 * 1024 * 1024, maxBufferTotalBytes: TOTAL, maxPerClient: 10 }),
        limits: { maxPageSize: 100 },
      });
      const url = new URL(proxy.url);
      // Raw sockets that send the request and never read: the kernel buffers fill, then the proxy's.
      const slow: Socket[] = [1, 2, 3].map(() => {
        const sock = connect(Number(url.port), url.hostname);
        sock.write(`GET /stream/heads HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
        sock.pause();
        return sock;
      });
      await untilHub(proxy, () => proxy.stream.hub.size === 3, 'the slow streams to open');
      const watcher = await r.stream(proxy.url);
      const start = sim.chain.head();
      for (let round = 0; round < 300 && proxy.stream.hub.size > 1; round++) {
        sim.chain.advance(100);
        const target = sim.chain.head();
        await untilFeed(proxy, (e) => e === target, `head ${target}`);
      }
      // All three went for the total, none for its own 4 MiB cap.
      expect(await counter(proxy.url, 'chainproxy_stream_clients_dropped_total', { reason: 'total' })).toBe(3);
      expect(await counter(proxy.url, 'chainproxy_stream_clients_dropped_total', { reason: 'slow' })).toBe(0);
      // Every slow reader is gone and what it queued was given back.
      await waitFor(
        () => proxy.stream.hub.size === 1 && proxy.stream.hub.queuedBytes === 0,
        'the queues to be given back',
      );
      expect(await counter(proxy.url, 'chainproxy_stream_queued_bytes')).toBe(0);
      for (const s of slow) s.destroy();
      // The subscriber that reads got every head, in order.
      const end = sim.chain.head();
      await watcher.until(() => watcher.events.length === end - start + 1, 20_000, 'every head');
      expect(watcher.heights()).toEqual(Array.from({ length: end - start + 1 }, (_, i) => start + i));
    },
  );
});
