/**
 * A wrong upstream is loud: `chainproxy --check` probes every upstream and
 * Redis once and exits 2 with one line naming the cause and a hint (unknown
 * host, closed port, https to a plain-HTTP server, wrong path prefix, Redis
 * down), 0 when all is well; a server started against a wrong upstream writes
 * the same diagnosis to stderr after its first failed probe, once.
 * Real processes, real sockets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { describeRedis, freePort, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { request } from 'undici';
import { LAUNCHER, listening, startProc, withStartupLine } from './kit.js';

let up: FakeUpstream;
let closedPort: number;
beforeAll(async () => {
  up = await startFakeUpstream();
  closedPort = await freePort();
});
afterAll(async () => {
  await up.close();
});

/** `chainproxy --check` with `env`: its exit code and standard output. */
async function check(env: Record<string, string>): Promise<{ code: number | null; out: string; failed: string[] }> {
  const p = startProc(env, { args: ['--check'] });
  const code = await p.exited;
  const out = p.stdout();
  return { code, out, failed: out.split('\n').filter((l) => l.startsWith('FAILED')) };
}

describe('chainproxy --check', () => {
  it('a reachable upstream: exit 0, its head named, nothing listens', async () => {
    const r = await check({ UPSTREAM_URLS: up.url });
    expect(r.out).toMatch(new RegExp(`^ok {5}upstream ${up.url}: head \\d+ \\(\\d+ ms\\)$`, 'm'));
    expect(r.out).toContain('ok     configuration: valid\n');
    expect(r.out).toContain('ok     redis: none configured');
    expect(r.out.trimEnd().split('\n').at(-1)).toBe('check passed');
    expect(r.code).toBe(0);
  });

  it.each([
    [
      'unknown host',
      'http://no-such-host.invalid:8080',
      'GET http://no-such-host.invalid:8080/block/max failed: DNS: unknown ' +
        'host no-such-host.invalid. Hint: check the host name in UPSTREAM_URLS.',
    ],
    [
      'closed port',
      'http://127.0.0.1:{PORT}',
      'GET http://127.0.0.1:{PORT}/block/max failed: connection refused by 127.0.0.1:{PORT}. ' +
        'Hint: nothing is listening there: wrong port, or the service is not running.',
    ],
    [
      'https to a plain-HTTP server',
      'https://{UP}',
      'GET https://{UP}/block/max failed: TLS handshake failed: the server did not ' +
        'answer in TLS. Hint: TLS to a plain-HTTP server? try http:// instead of https://.',
    ],
    [
      'wrong path prefix',
      'http://{UP}/api/v9',
      'GET http://{UP}/api/v9/block/max failed: HTTP 404 for http://{UP}/api/v9/block/max. Hint: wrong path prefix?',
    ],
  ])('%s: exit 2 and one line with the cause and a hint', async (_name, url, expected) => {
    const fill = (s: string) =>
      s.replaceAll('{PORT}', String(closedPort)).replaceAll('{UP}', up.url.slice('http://'.length));
    const r = await check({ UPSTREAM_URLS: fill(url) });
    expect(r.code).toBe(2);
    expect(r.failed).toHaveLength(1);
    expect(r.failed[0]).toContain(`FAILED upstream ${fill(url)}: ${fill(expected)}`);
    expect(r.out).not.toMatch(/ssl3_|openssl|\.c:\d+/i);
    expect(r.out.trimEnd().split('\n').at(-1)).toBe('check failed: 1 of 1 unreachable or wrong');
  });

  it('through the shipped entry point too (answered in its own process)', async () => {
    const p = startProc({ UPSTREAM_URLS: `http://127.0.0.1:${closedPort}` }, { args: ['--check'], entry: LAUNCHER });
    expect(await p.exited).toBe(2);
    expect(p.stdout()).toContain(
      `FAILED upstream http://127.0.0.1:${closedPort}: GET ` +
        `http://127.0.0.1:${closedPort}/block/max failed: connection refused`,
    );
  });

  it('one good and one bad upstream: exit 2, each named', async () => {
    const r = await check({ UPSTREAM_URLS: `${up.url},http://127.0.0.1:${closedPort}` });
    expect(r.code).toBe(2);
    expect(r.out).toMatch(new RegExp(`^ok {5}upstream ${up.url}: head \\d+`, 'm'));
    expect(r.failed).toEqual([expect.stringContaining(`FAILED upstream http://127.0.0.1:${closedPort}: `)]);
  });

  it('PASSTHROUGH backends: each connected to and named; a dead one fails the check (exit 2)', async () => {
    const dead = `http://127.0.0.1:${closedPort}`;
    const r = await check({ UPSTREAM_URLS: up.url, PASSTHROUGH: `/api=${up.url},/legacy=${dead}` });
    expect(r.out).toMatch(new RegExp(`^ok {5}passthrough /api -> ${up.url}: connected \\(\\d+ ms\\)$`, 'm'));
    expect(r.failed).toEqual([
      `FAILED passthrough /legacy -> ${dead}: connection refused by 127.0.0.1:${closedPort}. ` +
        'Hint: nothing is listening there: wrong port, or the backend is down',
    ]);
    expect(r.out.trimEnd().split('\n').at(-1)).toBe('check failed: 1 of 3 unreachable or wrong');
    expect(r.code).toBe(2);
  });

  it('an invalid setting: exit 2 before anything is probed', async () => {
    const before = up.count('/block/max');
    const p = startProc({ UPSTREAM_URLS: up.url, PORT: 'eighty' }, { args: ['--check'] });
    expect(await p.exited).toBe(2);
    expect(p.stderr()).toContain('PORT: expected');
    expect(up.count('/block/max')).toBe(before);
  });
});

describeRedis()('chainproxy --check with Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('Redis answering: exit 0 and the PING named', async () => {
    const r = await check({ UPSTREAM_URLS: up.url, REDIS_URL: redis.url });
    expect(r.out).toMatch(new RegExp(`^ok {5}redis ${redis.url}: PING answered`, 'm'));
    // The default PUBLIC_BASE_URL names this replica's port: a warning, the check still passes.
    expect(r.out).toContain('\nwarn   fleet: REDIS_URL is set but PUBLIC_BASE_URL is the default (http://localhost:0)');
    expect(r.code).toBe(0);
  });

  it('Redis not listening: exit 2 and one line saying so', async () => {
    const r = await check({ UPSTREAM_URLS: up.url, REDIS_URL: `redis://127.0.0.1:${closedPort}` });
    expect(r.code).toBe(2);
    expect(r.failed).toEqual([
      expect.stringMatching(
        new RegExp(
          `^FAILED redis redis://127\\.0\\.0\\.1:${closedPort}: not ready ` +
            'within \\d+ ms \\(.*ECONNREFUSED.*\\)\\. Hint: check REDIS_URL',
        ),
      ),
    ]);
  });
});

describe('a server started against a wrong upstream', () => {
  it(
    'writes the diagnosis to stderr after its first failed probe, ' +
      'once, and its start-up line says no upstream answered',
    async () => {
      const p = startProc({
        UPSTREAM_URLS: `http://127.0.0.1:${closedPort}`,
        UPSTREAM_PROBE_INTERVAL_MS: '100',
        UPSTREAM_PROBE_DENSE_MS: '0',
      });
      const stderr = await withStartupLine(p);
      const diagnosis =
        `chainproxy: upstream probe GET http://127.0.0.1:${closedPort}/block/max failed: connection refused by ` +
        `127.0.0.1:${closedPort}. Hint: nothing is listening there: wrong port, or the service is not running.\n`;
      expect(stderr.startsWith(diagnosis)).toBe(true);
      expect(stderr).toContain('(but no upstream answered its first probe: see the lines above)');
      expect(stderr).not.toContain('(try ');
      // Later failed probes are in the JSON log (at each change), not on stderr again.
      const url = String((await listening(p))['url']);
      const probes = async (): Promise<number> => {
        const text = await (await request(`${url}/metrics`)).body.text();
        return Number(/^chainproxy_upstream_background_requests_total\{purpose="probe"\} (\d+)/m.exec(text)?.[1] ?? 0);
      };
      await waitFor(async () => (await probes()) >= 5, 10_000, 'five probes');
      expect(p.stderr().split(diagnosis)).toHaveLength(2);
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    },
  );
});
