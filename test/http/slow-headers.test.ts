/**
 * A client that never finishes its request headers is cut after
 * HEADERS_TIMEOUT_MS (seconds, not Node's ~77 s), with a 408 envelope.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import { startEnv, type Env } from '../helpers/proxy-kit.js';
import { parseRaw, rawConnect } from './raw.js';

describe('slow request headers', () => {
  let env: Env | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  it('are cut after HEADERS_TIMEOUT_MS with a 408 envelope', async () => {
    env = await startEnv({ patch: { http: { ...defaultConfig().http, headersTimeoutMs: 600 } } });
    const slow = rawConnect(env.base, 'GET /block/max HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n');
    const { text, ms } = await slow.closed;
    const res = parseRaw(text);
    expect(res.status).toBe(408);
    expect(res.body).toEqual({ code: 4080, msg: 'request not received in time', data: null });
    expect(res.headers).toContain('content-type: application/json');
    // 600 ms plus the check interval (150 ms) and a loaded machine's slack; Node's default is ~77 s.
    expect(ms).toBeLessThan(10_000);
  }, 20_000);
});
