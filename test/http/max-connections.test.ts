/**
 * MAX_CONNECTIONS caps the client connections held at once: past it a new
 * connection is closed without an answer; once one closes, new ones are served.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import { startEnv, waitFor, type Env } from '../helpers/proxy-kit.js';
import { parseRaw, rawConnect, type RawExchange } from './raw.js';

const KEEP_ALIVE = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';

describe('connection cap', () => {
  let env: Env | undefined;
  const open: RawExchange[] = [];
  afterEach(async () => {
    for (const c of open.splice(0)) c.socket.destroy();
    await env?.close();
    env = undefined;
  });

  it('closes connections past MAX_CONNECTIONS at once and serves again below it', async () => {
    // No probe wait: its keep-alive client would hold one of the two connections.
    env = await startEnv({ patch: { http: { ...defaultConfig().http, maxConnections: 2 } }, waitProbe: false });
    for (let i = 0; i < 2; i++) {
      const c = rawConnect(env.base, KEEP_ALIVE);
      open.push(c);
      await waitFor(() => c.received().includes('"alive"'), 5000, `connection ${i} served`);
    }
    const third = rawConnect(env.base, KEEP_ALIVE);
    const { text } = await third.closed;
    expect(text).toBe('');

    open.shift()?.socket.destroy();
    await waitFor(
      async () => {
        const again = rawConnect(env!.base, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
        return parseRaw((await again.closed).text).status === 200;
      },
      5000,
      'served again below the cap',
    );
  });
});
