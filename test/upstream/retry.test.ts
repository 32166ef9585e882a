import { describe, expect, it } from 'vitest';
import { ChainTracker } from '../../src/chain/tracker.js';
import { ProxyError } from '../../src/errors/catalog.js';
import { createUpstreamPool, type ManagedUpstreamPool } from '../../src/upstream/pool.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { chainHandler, recordingMetrics, request, upstreamConfig } from '../helpers/upstream-kit.js';
import { closeAfterEach } from '../helpers/teardown.js';
import type { UpstreamConfig } from '../../src/config/types.js';

const scope = closeAfterEach<FakeUpstream, ManagedUpstreamPool>();
const fakes = scope.upstreams;

async function setup(n: number, patch: Partial<UpstreamConfig> = {}) {
  for (let i = 0; i < n; i++) fakes.push(await startFakeUpstream(chainHandler(`u${i}`, { value: 100 })));
  const metrics = recordingMetrics();
  const pool = (scope.front = createUpstreamPool({
    urls: fakes.map((f) => f.url),
    config: upstreamConfig(patch),
    tracker: new ChainTracker(),
    metrics,
  }));
  return { pool, metrics, fakes };
}

const fail500 = (_req: unknown, res: import('node:http').ServerResponse) =>
  sendJson(res, 500, '{"code":500,"msg":"boom","data":null}');

async function rejection(p: Promise<unknown>): Promise<ProxyError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProxyError);
  return err as ProxyError;
}

describe('retry', () => {
  it('a 5xx is retried on another upstream', async () => {
    const { pool, metrics, fakes } = await setup(2);
    fakes[0]!.setHandler(fail500);
    const res = await pool.fetch(request());
    expect(res.upstream).toBe('u1');
    expect(res.attempts).toBe(2);
    expect(res.json).toMatchObject({ data: { from: 'u1' } });
    expect(fakes[0]!.count('/tx/list')).toBe(1);
    expect(metrics.retries).toEqual(['tx/list']);
    expect(metrics.outcomes('u0')).toEqual(['http_error']);
    expect(metrics.outcomes('u1')).toEqual(['ok']);
  });

  it('a refused connection (upstream down) is retried on another upstream', async () => {
    const { pool, fakes } = await setup(2);
    await fakes[0]!.close();
    const res = await pool.fetch(request());
    expect(res.upstream).toBe('u1');
  });

  it('a 4xx answer is not retried', async () => {
    const { pool, fakes } = await setup(2);
    fakes[0]!.setHandler((_req, res) => sendJson(res, 404, '{"code":404,"msg":"not found","data":null}'));
    const res = await pool.fetch(request());
    expect(res.status).toBe(404);
    expect(res.attempts).toBe(1);
    expect(fakes[1]!.count()).toBe(0);
  });

  it('an accept-hook rejection (lagging answer) is retried elsewhere', async () => {
    const { pool, fakes } = await setup(2);
    const res = await pool.fetch(
      request('/block/max', 'head', { accept: (r) => (r.upstream === 'u0' ? 'behind' : null) }),
    );
    expect(res.upstream).toBe('u1');
    expect(fakes[0]!.count('/block/max')).toBe(1);
  });

  it('attempts are bounded by maxAttempts, each on a distinct upstream', async () => {
    const { pool, metrics, fakes } = await setup(3, { maxAttempts: 2 });
    for (const f of fakes) f.setHandler(fail500);
    const err = await rejection(pool.fetch(request()));
    expect(err.kind).toBe('UPSTREAM_ERROR');
    const counts = fakes.map((f) => f.count());
    expect(counts.reduce((a, b) => a + b, 0)).toBe(2);
    expect(counts.filter((c) => c > 1)).toEqual([]);
    expect(metrics.retries).toHaveLength(1);
  });

  it('with a single upstream, retries go to the same one', async () => {
    const { pool, fakes } = await setup(1, { maxAttempts: 3, breakerFailures: 10 });
    let n = 0;
    fakes[0]!.setHandler((_req, res) =>
      ++n < 3 ? fail500(_req, res) : sendJson(res, 200, '{"code":0,"msg":"success","data":{}}'),
    );
    const res = await pool.fetch(request());
    expect(res.attempts).toBe(3);
    expect(fakes[0]!.count()).toBe(3);
  });

  it('the total deadline ends the request even when attempts remain', async () => {
    // A deadline the first attempt surely reaches its upstream within, far below the attempt timeout.
    const { pool, fakes } = await setup(3, { maxAttempts: 5, attemptTimeoutMs: 10_000, totalDeadlineMs: 1000 });
    for (const f of fakes) f.setHandler(() => new Promise<void>(() => {}));
    const started = performance.now();
    const err = await rejection(pool.fetch(request()));
    expect(err.kind).toBe('UPSTREAM_TIMEOUT');
    expect(performance.now() - started).toBeLessThan(5000); // the deadline, not the 10 s attempt timeout
    expect(fakes.reduce((a, f) => a + f.count(), 0)).toBe(1);
  });

  it('per-attempt timeouts are retried until the deadline', async () => {
    // An attempt timeout the healthy upstream's answer meets even on a loaded machine.
    const { pool, fakes } = await setup(2, { maxAttempts: 5, attemptTimeoutMs: 1000, totalDeadlineMs: 20_000 });
    fakes[0]!.setHandler(() => new Promise<void>(() => {}));
    const res = await pool.fetch(request());
    expect(res.upstream).toBe('u1');
    expect(res.attempts).toBe(2);
  });

  it('a non-retryable caller abort is not retried', async () => {
    const { pool, fakes } = await setup(2);
    fakes[0]!.setHandler(() => new Promise<void>(() => {}));
    const ctl = new AbortController();
    const p = rejection(pool.fetch(request('/tx/list', 'any', { signal: ctl.signal })));
    setTimeout(() => ctl.abort(new ProxyError('REQUEST_TIMEOUT')), 30);
    expect((await p).kind).toBe('REQUEST_TIMEOUT');
    expect(fakes[1]!.count()).toBe(0);
  });
});
