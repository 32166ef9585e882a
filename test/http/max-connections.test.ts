/**
 * The connection caps. MAX_CONNECTIONS: at the cap a new connection closes
 * the oldest idle one (no request in flight) and is served; only when every
 * held connection is busy is it closed without an answer. MAX_CONNECTIONS_PER_CLIENT:
 * one client address holding its limit (idle or busy) does not lock out
 * another address (127.0.0.2: the whole of 127/8 is loopback on Linux).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import { ask } from '../helpers/ask.js';
import { startEnv, waitFor, type Env } from '../helpers/proxy-kit.js';
import { untilEmitted } from '../helpers/until.js';
import { parseRaw, rawConnect, type RawExchange } from './raw.js';

const KEEP_ALIVE = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';
const ONCE = 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
const STREAM = 'GET /stream/heads HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n';
const OTHER = '127.0.0.2';

describe('connection caps', () => {
  let env: Env | undefined;
  const open: RawExchange[] = [];
  afterEach(async () => {
    for (const c of open.splice(0)) c.socket.destroy();
    await env?.close();
    env = undefined;
  });

  const start = async (maxConnections: number, maxConnectionsPerClient: number) => {
    // No probe wait: its keep-alive client would hold one of the connections.
    env = await startEnv({
      patch: { http: { ...defaultConfig().http, maxConnections, maxConnectionsPerClient } },
      waitProbe: false,
    });
    return env.base;
  };
  /** A connection served its first answer (`until` in what it received), then held open. */
  const held = async (base: string, send: string, until: string, from?: string) => {
    const c = rawConnect(base, send, from);
    open.push(c);
    await untilEmitted(c.socket, 'data', () => c.received().includes(until), `a connection answered (${until})`);
    return c;
  };
  /** chainproxy_connections_shed_total{reason}, read from another address (this one may be at its limit). */
  const shed = async (base: string, reason: string): Promise<number> => {
    const text = (await ask(base, '/metrics', { localAddress: OTHER, headers: { connection: 'close' } })).text;
    const line = text.split('\n').find((l) => l.startsWith(`chainproxy_connections_shed_total{reason="${reason}"}`));
    return Number(line?.split(' ').pop());
  };
  const servedOnce = async (base: string, from?: string) =>
    parseRaw((await rawConnect(base, ONCE, from).closed).text).status;

  it('at MAX_CONNECTIONS a new connection closes the oldest idle one and is served', async () => {
    const base = await start(2, 0);
    const [first, second] = [await held(base, KEEP_ALIVE, '"alive"'), await held(base, KEEP_ALIVE, '"alive"')];
    expect(await servedOnce(base, OTHER)).toBe(200);
    await first!.closed;
    expect(second!.socket.destroyed).toBe(false);
    expect(await shed(base, 'idle')).toBeGreaterThanOrEqual(1);
    expect(await shed(base, 'cap')).toBe(0);
  });

  it('at MAX_CONNECTIONS with every connection busy, a new one is closed at once without an answer', async () => {
    const base = await start(2, 0);
    const streams = [await held(base, STREAM, 'HTTP/1.1 200'), await held(base, STREAM, 'HTTP/1.1 200')];
    const refused = rawConnect(base, KEEP_ALIVE, OTHER);
    expect((await refused.closed).text).toBe('');
    streams[0]!.socket.destroy();
    await waitFor(async () => (await servedOnce(base, OTHER)) === 200, 5000, 'served again below the cap');
  });

  it('one address holding MAX_CONNECTIONS_PER_CLIENT idle connections does not lock out another', async () => {
    const base = await start(4, 2);
    const mine = [await held(base, KEEP_ALIVE, '"alive"'), await held(base, KEEP_ALIVE, '"alive"')];
    // Its third closes its own oldest idle one.
    await held(base, KEEP_ALIVE, '"alive"');
    await mine[0]!.closed;
    expect(mine[1]!.socket.destroyed).toBe(false);
    expect(await servedOnce(base, OTHER)).toBe(200);
  });

  it('one address holding MAX_CONNECTIONS_PER_CLIENT busy connections gets no more; another is served', async () => {
    const base = await start(8, 2);
    await held(base, STREAM, 'HTTP/1.1 200');
    await held(base, STREAM, 'HTTP/1.1 200');
    expect((await rawConnect(base, KEEP_ALIVE).closed).text).toBe('');
    expect(await servedOnce(base, OTHER)).toBe(200);
    expect(await shed(base, 'client')).toBe(1);
  });

  it('a peer in TRUST_PROXY (a balancer carrying many clients) has no per-client limit', async () => {
    env = await startEnv({
      patch: { http: { ...defaultConfig().http, maxConnectionsPerClient: 1 }, trustProxy: ['127.0.0.1'] },
      waitProbe: false,
    });
    await held(env.base, STREAM, 'HTTP/1.1 200');
    await held(env.base, STREAM, 'HTTP/1.1 200');
    expect(await servedOnce(env.base)).toBe(200);
  });

  it('one address opening MAX_CONNECTIONS idle connections (no per-client limit) locks out no other', async () => {
    const base = await start(4, 0);
    for (let i = 0; i < 4; i++) await held(base, KEEP_ALIVE, '"alive"');
    for (let i = 0; i < 3; i++) expect(await servedOnce(base, OTHER)).toBe(200);
  });

  it('the default: 256 per client address', () => {
    expect(defaultConfig().http.maxConnectionsPerClient).toBe(256);
  });
});
