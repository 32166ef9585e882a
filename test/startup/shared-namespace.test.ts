/**
 * Start-up of `src/main.ts` in its own process with REDIS_URL (a real
 * redis-server) and no PUBLIC_BASE_URL: one warning line on stderr and one
 * JSON warn log line say that replicas on other ports would share nothing.
 */
import { expect, it, onTestFinished } from 'vitest';
import { startSimulator } from '../../src/sim/index.js';
import { describeRedis, startRedisServer } from '../helpers/redis-server.js';
import { listening, startProc } from '../process/kit.js';

const describe = describeRedis();

describe('start-up with REDIS_URL and the default PUBLIC_BASE_URL', { timeout: 120_000 }, () => {
  it('warns on stderr and in the log', async () => {
    const [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0 })]);
    onTestFinished(async () => {
      await Promise.all([redis.stop(), sim.close()]);
    });
    const p = startProc({ REDIS_URL: redis.url, UPSTREAM_URLS: sim.url, PORT: '0' });
    await listening(p);
    const line = p
      .stderr()
      .split('\n')
      .find((l) => l.startsWith('chainproxy: warning: '));
    expect(line).toBe(
      'chainproxy: warning: REDIS_URL is set but PUBLIC_BASE_URL is the default ' +
        '(http://localhost:0): replicas on other ports get other base URLs, ' +
        'so they share no cached entries; set PUBLIC_BASE_URL to the address clients use, the same on every replica',
    );
    const warn = p.lines.find(
      (l) => l['level'] === 40 && String(l['msg']).startsWith('REDIS_URL is set but PUBLIC_BASE_URL is the default'),
    );
    expect(warn?.['publicBaseUrl']).toBe('http://localhost:0');
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });
});
