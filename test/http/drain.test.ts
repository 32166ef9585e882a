/**
 * drain(): on a real socket. Requests that finish before the deadline are
 * untouched; at the deadline the upstream work is aborted first (requests
 * answer through their own path), then anything still open gets the 503
 * envelope; a handler answering after the cut is dropped without an error.
 */
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { drain } from '../../src/http/drain.js';
import { untilEmitted } from '../helpers/until.js';
import { drainServed, serve, writer } from './drain-kit.js';

describe('drain', () => {
  it('lets a request finish before the deadline: no cut, no abort', async () => {
    let finish: () => void = () => {};
    const { app, open, url } = await serve((a) =>
      a.get('/slow', async () => {
        await new Promise<void>((r) => (finish = r));
        return { ok: true };
      }),
    );
    const res = request(`${url}/slow`);
    await untilEmitted(app.server, 'request', () => open.size === 1, 'the open response');
    let aborted = false;
    const done = drain({
      server: app.server,
      open,
      close: () => app.close(),
      abortUpstream: async () => void (aborted = true),
      deadlineMs: 10_000,
      writer,
    });
    finish();
    expect(await (await res).body.json()).toEqual({ ok: true });
    expect(await done).toEqual({ timedOut: false, cut: 0 });
    expect(aborted).toBe(false);
  });

  it(
    'at the deadline: aborted upstream work answers through its own path; ' + 'the rest gets the 503 envelope',
    async () => {
      let abortWork: () => void = () => {};
      const work = new Promise<void>((_, reject) => (abortWork = () => reject(new Error('aborted'))));
      let lateAnswer: () => void = () => {};
      const { app, open, url } = await serve((a) => {
        a.get('/upstream', async (_req, reply) => {
          await work.catch(() => undefined);
          return reply.code(503).send({ own: 'path' });
        });
        a.get('/stuck', (_req, reply) => {
          // Answers only after the cut: must neither throw nor reach the client.
          lateAnswer = () => {
            reply.hijack();
            reply.raw.writeHead(200, { 'content-type': 'text/plain' });
            reply.raw.end('late');
          };
        });
      });
      const viaUpstream = request(`${url}/upstream`);
      const stuck = request(`${url}/stuck`);
      await untilEmitted(app.server, 'request', () => open.size === 2, 'two open responses');
      const started = performance.now();
      const result = await drain({
        server: app.server,
        open,
        close: () => app.close(),
        abortUpstream: async () => abortWork(),
        deadlineMs: 300,
        graceMs: 100,
        writer,
      });
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
      expect(result).toEqual({ timedOut: true, cut: 1 });

      const a = await viaUpstream;
      expect(a.statusCode).toBe(503);
      expect(await a.body.json()).toEqual({ own: 'path' });
      const b = await stuck;
      expect(b.statusCode).toBe(503);
      expect(b.headers['cache-control']).toBe('no-store');
      expect(b.headers['retry-after']).toBe('1');
      expect(await b.body.json()).toEqual({ code: 5030, msg: 'server is shutting down', data: null });
      expect(() => lateAnswer()).not.toThrow();
    },
  );

  it('an idle keep-alive connection does not hold the drain', async () => {
    const { app, open, url } = await serve((a) => a.get('/x', async () => ({ x: 1 })));
    const res = await request(`${url}/x`); // undici keeps the connection alive
    await res.body.json();
    const started = performance.now();
    expect(await drainServed({ app, open }, 20_000)).toEqual({ timedOut: false, cut: 0 });
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
