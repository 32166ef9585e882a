import { afterEach, describe, expect, it } from 'vitest';
import { ChainTracker } from '../../src/chain/tracker.js';
import { ProxyError } from '../../src/errors/catalog.js';
import { createUpstreamPool, type ManagedUpstreamPool } from '../../src/upstream/pool.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { chainHandler, recordingMetrics, request, upstreamConfig } from '../helpers/upstream-kit.js';
import { fakeClock } from '../helpers/clock.js';

describe('Breaker in the pool', () => {
  const fakes: FakeUpstream[] = [];
  let pool: ManagedUpstreamPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
    await Promise.all(fakes.splice(0).map((f) => f.close()));
  });

  it('opens on failures (traffic stops reaching it), half-opens after the cooldown, a probe closes it', async () => {
    const clock = fakeClock();
    const head = { value: 100 };
    fakes.push(await startFakeUpstream(chainHandler('u0', head)), await startFakeUpstream(chainHandler('u1', head)));
    pool = createUpstreamPool({
      urls: fakes.map((f) => f.url),
      config: upstreamConfig({ breakerFailures: 2, breakerCooldownMs: 5000, maxAttempts: 2 }),
      tracker: new ChainTracker(),
      metrics: recordingMetrics(),
      clock: clock.now,
    });
    fakes[0]!.setHandler((_req, res) => sendJson(res, 503, '{"code":503,"msg":"down","data":null}'));
    // Each request: u0 fails (it ranks first), the retry lands on u1.
    for (let i = 0; i < 2; i++) expect((await pool.fetch(request())).upstream).toBe('u1');
    expect(pool.status()[0]!.breaker).toBe('open');
    const before = fakes[0]!.count();
    for (let i = 0; i < 5; i++) expect((await pool.fetch(request())).upstream).toBe('u1');
    expect(fakes[0]!.count()).toBe(before);

    // The open upstream is still probed (head, health) but the probe does not touch the breaker.
    fakes[0]!.setHandler(chainHandler('u0', head));
    await pool.probeNow();
    expect(pool.status()[0]).toMatchObject({ breaker: 'open', healthy: false });

    clock.advance(5000);
    expect(pool.status()[0]!.breaker).toBe('half-open');
    await pool.probeNow(); // the probe takes the trial slot and succeeds
    expect(pool.status()[0]).toMatchObject({ breaker: 'closed', healthy: true });
  });

  it('a failed half-open trial reopens; a request can be the trial and close it', async () => {
    const clock = fakeClock();
    fakes.push(await startFakeUpstream(chainHandler('u0', { value: 1 })));
    pool = createUpstreamPool({
      urls: [fakes[0]!.url],
      config: upstreamConfig({ breakerFailures: 1, breakerCooldownMs: 1000, maxAttempts: 1 }),
      tracker: new ChainTracker(),
      clock: clock.now,
    });
    fakes[0]!.setHandler((_req, res) => sendJson(res, 500, '{}'));
    await expect(pool.fetch(request())).rejects.toMatchObject({ kind: 'UPSTREAM_ERROR' });
    const refused = await pool.fetch(request()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProxyError);
    expect(refused).toMatchObject({ kind: 'UPSTREAM_UNAVAILABLE' });
    expect(fakes[0]!.count()).toBe(1);

    clock.advance(1000);
    await expect(pool.fetch(request())).rejects.toMatchObject({ kind: 'UPSTREAM_ERROR' });
    expect(pool.status()[0]!.breaker).toBe('open');

    clock.advance(1000);
    fakes[0]!.setHandler(chainHandler('u0', { value: 1 }));
    expect((await pool.fetch(request())).status).toBe(200);
    expect(pool.status()[0]!.breaker).toBe('closed');
  });
});
