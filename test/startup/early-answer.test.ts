/**
 * The port bound before the server is ready answers, never holds: a request
 * that reaches it before the hand-over gets the 503 envelope (code 5033,
 * Retry-After: 1, Connection: close) on a real socket, so does a connection
 * that sends garbage; once the server listens on the handle, new connections
 * reach it. (The process test in test/process/startup-window.test.ts throws
 * requests at whole starts; this one holds the window open.)
 */
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { bindPort } from '../../src/startup/bind.js';
import { notReadyAnswer } from '../../src/startup/not-ready.js';

const STARTING = '{"code":5033,"msg":"not ready: starting up","data":null}';

/** Everything a raw connection receives until the server closes it (the test fails on a hold). */
function exchange(port: number, send: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1' });
    let text = '';
    s.on('connect', () => s.write(send));
    s.on('data', (d: Buffer) => (text += d.toString('latin1')));
    s.on('close', () => resolve(text));
    s.on('error', reject);
  });
}

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});

describe('the bound port before the server is ready', () => {
  it('answers every request 503 with Retry-After and closes; after the hand-over the server answers', async () => {
    const bound = await bindPort(
      0,
      '127.0.0.1',
      notReadyAnswer({ upstreamIsSimulator: true, headersTimeoutMs: 10_000 }),
    );
    if (!bound.ok) throw new Error(bound.message);
    const name: { port?: number } = {};
    (bound.bound.handle as { getsockname(o: object): void }).getsockname(name);
    const port = name.port!;

    for (const path of ['/healthz', '/block/max', '/stream/heads']) {
      const text = await exchange(port, `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const [head, body] = text.split('\r\n\r\n');
      expect(head, path).toMatch(/^HTTP\/1\.1 503 /);
      expect(head!.toLowerCase()).toContain('\r\nretry-after: 1');
      expect(head!.toLowerCase()).toContain('\r\nconnection: close');
      expect(head!.toLowerCase()).toContain('\r\ncontent-type: application/json');
      expect(head!.toLowerCase()).toContain('\r\nx-chainproxy-upstream: simulator');
      expect(body).toBe(STARTING);
    }
    // Not HTTP at all: the same answer, then the connection closes.
    const garbage = await exchange(port, 'HELLO\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 503 /);
    expect(garbage.endsWith(STARTING)).toBe(true);

    const ready = createServer((_req, res) => res.end('ready'));
    servers.push(ready);
    await new Promise<void>((r) => ready.listen(Object.assign({ host: '127.0.0.1' }, bound.bound), () => r()));
    const after = await exchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(after).toMatch(/^HTTP\/1\.1 200 /);
    expect(after.endsWith('ready')).toBe(true);
  });
});
