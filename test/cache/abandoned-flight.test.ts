/**
 * When every client waiting on a flight has gone, the flight is cancelled: the
 * upstream request is aborted at once (not left running to its timeout) and a
 * later client starts afresh. While one client still waits, nothing is cancelled.
 */
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { loadFixtures } from '../helpers/fake-upstream.js';
import { get, routes, startEnv, type Env, type Handler } from '../helpers/proxy-kit.js';
import { untilEmitted, within } from '../helpers/until.js';

/** A recorded tx/detail answer: a good answer by the record schema. */
const RECORDED = loadFixtures().find((f) => f.path === 'tx/detail')!;
const PATH = `/tx/detail?${RECORDED.query}`;

/** tx/detail hangs until `release()`; records upstream requests whose connection closed before an answer. */
function slowDetail() {
  const pending: Array<() => void> = [];
  let abandoned = 0;
  // Told as each upstream request's connection closes.
  const closes = new EventEmitter();
  const handler: Handler = (req, res) => {
    res.on('close', () => {
      if (!res.writableFinished) abandoned += 1;
      closes.emit('close');
    });
    pending.push(() => {
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(RECORDED.body);
    });
    void req;
  };
  return {
    handler,
    abandoned: () => abandoned,
    closes,
    waiting: () => pending.length,
    release: () => pending.splice(0).forEach((f) => f()),
  };
}

const patch = {
  upstream: { hedgeAfterMs: 0, hedgeQuantile: 0, attemptTimeoutMs: 30_000, totalDeadlineMs: 30_000 },
  limits: { requestTimeoutMs: 30_000 },
};

describe('abandoned flights', () => {
  let env: Env | undefined;
  let slow: ReturnType<typeof slowDetail>;
  afterEach(async () => {
    slow?.release();
    await env?.close();
    env = undefined;
  });

  it('are cancelled upstream once every client has gone', async () => {
    slow = slowDetail();
    env = await startEnv({ handler: routes({ 'tx/detail': slow.handler }), patch });
    const clients = [new AbortController(), new AbortController()];
    const requests = clients.map((c) => get(env!.base, PATH, { signal: c.signal }).catch(() => 'aborted'));
    await env.up.until(() => slow.waiting() === 1, 'one upstream request (the clients share a flight)');
    expect(env.count('/tx/detail')).toBe(1);

    clients[0]!.abort();
    await new Promise((r) => setImmediate(r));
    expect(slow.abandoned()).toBe(0); // one client still waits

    clients[1]!.abort();
    await Promise.all(requests);
    await untilEmitted(slow.closes, 'close', () => slow.abandoned() === 1, 'the upstream request aborted');
    await within(env!.proxy.resolver.idle(), 'the flight gone', 5000);

    // A later client starts a new flight rather than joining the cancelled one.
    const later = get(env.base, PATH);
    await env.up.arrived(2, '/tx/detail', 'a new upstream request');
    expect(env.count('/tx/detail')).toBe(2);
    slow.release();
    expect((await later).status).toBe(200);
  });

  it('go on while one client still waits', async () => {
    slow = slowDetail();
    env = await startEnv({ handler: routes({ 'tx/detail': slow.handler }), patch });
    const leaving = new AbortController();
    const gone = get(env.base, PATH, { signal: leaving.signal }).catch(() => 'aborted');
    const staying = get(env.base, PATH);
    await env.up.until(() => slow.waiting() === 1, 'the shared upstream request');
    leaving.abort();
    await gone;
    slow.release();
    const g = await staying;
    expect(g.status).toBe(200);
    expect(slow.abandoned()).toBe(0);
    expect(env.count('/tx/detail')).toBe(1);
  });
});
