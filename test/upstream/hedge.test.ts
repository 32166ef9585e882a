import { describe, expect, it } from 'vitest';
import { ChainTracker } from '../../src/chain/tracker.js';
import { createUpstreamPool, type ManagedUpstreamPool } from '../../src/upstream/pool.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { chainHandler, gate, recordingMetrics, request, upstreamConfig } from '../helpers/upstream-kit.js';
import { closeAfterEach } from '../helpers/teardown.js';
import type { UpstreamConfig } from '../../src/config/types.js';

const scope = closeAfterEach<FakeUpstream, ManagedUpstreamPool>();
const fakes = scope.upstreams;

async function setup(patch: Partial<UpstreamConfig>) {
  const slow = gate(chainHandler('u0', { value: 100 }));
  fakes.push(await startFakeUpstream(slow.handler), await startFakeUpstream(chainHandler('u1', { value: 100 })));
  const metrics = recordingMetrics();
  // u0 comes first in configuration order, so it takes the first attempt.
  const pool = (scope.front = createUpstreamPool({
    urls: fakes.map((f) => f.url),
    config: upstreamConfig(patch),
    tracker: new ChainTracker(),
    metrics,
  }));
  return { pool, metrics, slow };
}

describe('hedging', () => {
  it('races a second upstream after hedgeAfterMs, takes its answer and cancels the slow one', async () => {
    const { pool, metrics, slow } = await setup({ hedgeAfterMs: 30 });
    const started = performance.now();
    const res = await pool.fetch(request());
    expect(performance.now() - started).toBeLessThan(1500);
    expect(res.upstream).toBe('u1');
    expect(res.attempts).toBe(2);
    expect(metrics.hedges).toEqual(['tx/list']);
    expect(metrics.retries).toEqual([]);
    await metrics.until(() => metrics.outcomes('u0').length === 1, 'loser outcome');
    expect(metrics.outcomes('u0')).toEqual(['cancelled']);
    expect(metrics.outcomes('u1')).toEqual(['ok']);
    await slow.until(() => slow.aborted() === 1, 'slow upstream to see the request aborted');
    // A cancelled attempt is not a failure: the slow upstream's breaker stays closed.
    expect(pool.status()[0]!.breaker).toBe('closed');
    expect(pool.status()[0]!.inFlight).toBe(0);
  });

  it('no hedge when the first attempt answers in time', async () => {
    const { pool, metrics, slow } = await setup({ hedgeAfterMs: 5000 });
    slow.open();
    const res = await pool.fetch(request());
    expect(res.upstream).toBe('u0');
    expect(metrics.hedges).toEqual([]);
    expect(fakes[1]!.count()).toBe(0);
  });

  it('hedgeAfterMs = 0 disables hedging', async () => {
    const { pool, metrics, slow } = await setup({ hedgeAfterMs: 0 });
    const p = pool.fetch(request());
    await slow.until(() => slow.held() === 1, 'request to reach u0');
    slow.open();
    expect((await p).upstream).toBe('u0');
    expect(metrics.hedges).toEqual([]);
    expect(fakes[1]!.count()).toBe(0);
  });

  it('when the hedge fails, the first attempt can still win', async () => {
    const { pool, metrics, slow } = await setup({ hedgeAfterMs: 20 });
    await fakes[1]!.close(); // the hedge target is down
    const p = pool.fetch(request());
    await metrics.until(() => metrics.outcomes('u1').length === 1, 'hedge to fail');
    slow.open();
    const res = await p;
    expect(res.upstream).toBe('u0');
    expect(metrics.hedges).toEqual(['tx/list']);
  });

  describe('an attempt outrun by a hedge', () => {
    /** u0 holds `tx/list` requests (until aborted) and answers probes; u1 answers everything. */
    async function holding(patch: Partial<UpstreamConfig>) {
      let held = 0;
      const inner = chainHandler('u0', { value: 100 });
      const u0 = await startFakeUpstream((req, res) => {
        if ((req.url ?? '').startsWith('/block/max')) return inner(req, res);
        held++;
        return new Promise<void>((resolve) => res.on('close', () => resolve()));
      });
      fakes.push(u0, await startFakeUpstream(chainHandler('u1', { value: 100 })));
      const metrics = recordingMetrics();
      const pool = (scope.front = createUpstreamPool({
        urls: fakes.map((f) => f.url),
        config: upstreamConfig({ breakerFailures: 1, ...patch }),
        tracker: new ChainTracker(),
        metrics,
      }));
      return { pool, metrics, held: () => held, u0 };
    }

    it('counts against the breaker of an upstream that answered nothing meanwhile (hung)', async () => {
      const { pool, metrics, held } = await holding({ hedgeAfterMs: 30 });
      expect((await pool.fetch(request())).upstream).toBe('u1');
      await metrics.until(() => metrics.outcomes('u0').length === 1, 'loser outcome');
      expect(held()).toBe(1);
      expect(pool.status()[0]!.breaker).toBe('open');
    });

    it('does not count against one that answered well meanwhile (busy, not failing)', async () => {
      const { pool, metrics, held, u0 } = await holding({ hedgeAfterMs: 400 });
      const p = pool.fetch(request());
      await u0.until(() => held() === 1, 'the first attempt held by u0');
      await pool.probeNow(); // u0 answers its probe well while the attempt waits
      expect((await p).upstream).toBe('u1');
      await metrics.until(() => metrics.outcomes('u0').length === 1, 'loser outcome');
      expect(metrics.outcomes('u0')).toEqual(['cancelled']);
      expect(pool.status()[0]!.breaker).toBe('closed');
    });
  });
});
