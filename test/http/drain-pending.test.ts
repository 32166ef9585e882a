/**
 * drain() closes a connection only once nothing is pending on it: not while
 * its last response is still flushing to a slow reader, not while a response
 * to a pipelined request is queued behind the one that just ended, and not
 * right after a keep-alive response that was in flight when the drain began
 * (its client may be sending the next request).
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/fake-upstream.js';
import { untilEmitted } from '../helpers/until.js';
import { drainServed, serve } from './drain-kit.js';

/** A raw client: sends `raw` at once, collects every byte until the server closes. */
function rawClient(url: string, raw: string): { socket: Socket; received: Promise<Buffer>; sofar: () => string } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.write(raw);
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  const received = new Promise<Buffer>((resolve) => socket.once('close', () => resolve(Buffer.concat(chunks))));
  return { socket, received, sofar: () => Buffer.concat(chunks).toString('latin1') };
}

const get = (path: string): string => `GET ${path} HTTP/1.1\r\nhost: test\r\n\r\n`;

/** Counts the calls of `server.closeIdleConnections()` (the drain's sweeps) from now on; `told` hears each. */
function countSweeps(server: { closeIdleConnections(): void }): { count: () => number; told: EventEmitter } {
  const sweep = server.closeIdleConnections.bind(server);
  const told = new EventEmitter();
  let n = 0;
  server.closeIdleConnections = () => {
    n++;
    sweep();
    told.emit('sweep');
  };
  return { count: () => n, told };
}

describe('drain: connections with a response pending', () => {
  it(
    'a response queued behind one that just ended is delivered, ' + 'even when the idle sweep runs in between',
    async () => {
      let release: () => void = () => {};
      let held: ServerResponse | undefined;
      let quick: ServerResponse | undefined;
      const { app, open, url } = await serve((a) => {
        a.get('/held', async (_req, reply) => {
          held = reply.raw;
          await new Promise<void>((r) => (release = r));
          return 'first-body';
        });
        a.get('/quick', async (_req, reply) => {
          quick = reply.raw;
          return 'second-body';
        });
      });
      const client = rawClient(url, get('/held') + get('/quick'));
      // The second answer is complete but queued: the connection is busy with the first.
      await waitFor(() => held !== undefined && quick?.writableEnded === true, 5000, 'both handlers');
      const done = drainServed({ app, open }, 10_000);
      // The sweep lands right after the first response finished, the queued one now on the socket.
      held?.once('finish', () => app.server.closeIdleConnections());
      release();

      const text = (await client.received).toString('latin1');
      expect(text.match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
      expect(text).toContain('first-body');
      expect(text.endsWith('second-body')).toBe(true);
      expect(await done).toEqual({ timedOut: false, cut: 0 });
    },
  );

  it('a large response still flushing to a slow reader is not cut by the sweeps', async () => {
    const size = 32 * 1024 * 1024;
    let big: ServerResponse | undefined;
    const { app, open, url } = await serve((a) =>
      a.get('/big', async (_req, reply) => {
        big = reply.raw;
        return reply.type('application/octet-stream').send(Buffer.alloc(size, 7));
      }),
    );
    const client = rawClient(url, get('/big'));
    client.socket.pause();
    // Ended by the handler, its bytes still queued: the reader has not read them.
    await waitFor(() => big?.writableEnded === true && !big.writableFinished, 5000, 'the response ended, not flushed');
    const done = drainServed({ app, open }, 20_000);
    const sweeps = countSweeps(app.server);
    let drained = false;
    void done.then(() => {
      drained = true;
      sweeps.told.emit('drained');
    });
    await untilEmitted(sweeps.told, ['sweep', 'drained'], () => sweeps.count() >= 2 || drained, 'two idle sweeps');
    expect(big?.writableFinished, 'the response still flushing after the sweeps').toBe(false);
    client.socket.resume();

    const bytes = await client.received;
    const head = bytes.indexOf('\r\n\r\n');
    expect(bytes.subarray(0, head).toString('latin1')).toMatch(new RegExp(`content-length: ${size}\\r\\n`, 'i'));
    expect(bytes.length - head - 4).toBe(size);
    expect(await done).toEqual({ timedOut: false, cut: 0 });
  });

  it(
    'the next request, sent on the keep-alive connection once the ' +
      'response in flight arrived, is served with Connection: close',
    async () => {
      let release: () => void = () => {};
      let held = false;
      const handled = new EventEmitter();
      const { app, open, url } = await serve((a) => {
        a.get('/held', async () => {
          held = true;
          handled.emit('held');
          await new Promise<void>((r) => (release = r));
          return 'first-body';
        });
        a.get('/next', async () => 'next-body');
      });
      const client = rawClient(url, get('/held'));
      await untilEmitted(handled, 'held', () => held, 'the first handler');
      const done = drainServed({ app, open }, 10_000);
      const sweeps = countSweeps(app.server);
      let drained = false;
      void done.then(() => {
        drained = true;
        sweeps.told.emit('drained');
      });
      release();
      await untilEmitted(client.socket, 'data', () => client.sofar().endsWith('first-body'), 'the first response');
      expect(client.sofar()).toMatch(/connection: keep-alive/i);
      // Idle sweeps run between the response and the client's next request.
      const before = sweeps.count();
      await untilEmitted(
        sweeps.told,
        ['sweep', 'drained'],
        () => sweeps.count() >= before + 2 || drained,
        'two idle sweeps',
      );
      client.socket.write(get('/next'));

      const text = (await client.received).toString('latin1');
      const second = text.slice(text.indexOf('first-body') + 'first-body'.length);
      expect(second).toMatch(/^HTTP\/1\.1 200 /);
      expect(second).toMatch(/\r\nconnection: close\r\n/i);
      expect(second.endsWith('next-body')).toBe(true);
      expect(await done).toEqual({ timedOut: false, cut: 0 });
    },
  );
});
