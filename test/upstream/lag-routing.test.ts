import { describe, expect, it } from 'vitest';
import { ChainTracker } from '../../src/chain/tracker.js';
import { createUpstreamPool, type ManagedUpstreamPool } from '../../src/upstream/pool.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { chainHandler, gate, request, upstreamConfig } from '../helpers/upstream-kit.js';
import { closeAfterEach } from '../helpers/teardown.js';

const scope = closeAfterEach<FakeUpstream, ManagedUpstreamPool>();
const fakes = scope.upstreams;

/** u0 frozen at 90 (first in order, so it would win ties), u1 at 100. */
async function setup() {
  const frozen = gate(chainHandler('u0', { value: 90 }));
  const live = gate(chainHandler('u1', { value: 100 }));
  fakes.push(await startFakeUpstream(frozen.handler), await startFakeUpstream(live.handler));
  const pool = (scope.front = createUpstreamPool({
    urls: fakes.map((f) => f.url),
    config: upstreamConfig({ maxLagBlocks: 2, breakerFailures: 1, maxAttempts: 2 }),
    tracker: new ChainTracker(),
  }));
  frozen.open();
  live.open();
  await pool.probeNow();
  return { pool, frozen, live };
}

describe('lag-aware routing', () => {
  it("never sends 'head' requests to a lagging upstream, even under load", async () => {
    const { pool } = await setup();
    expect(pool.status()[0]!.lagging).toBe(true);
    const answers = await Promise.all(Array.from({ length: 20 }, () => pool.fetch(request('/block/max', 'head'))));
    expect(new Set(answers.map((a) => a.upstream))).toEqual(new Set(['u1']));
    expect(answers.every((a) => a.laggingFallback !== true)).toBe(true);
    expect(fakes[0]!.count('/block/max')).toBe(1); // the probe only
  });

  it("uses the lagging upstream for 'any' (immutable) requests", async () => {
    const { pool } = await setup();
    // Ten concurrent requests: least-loaded selection spreads them over both.
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => pool.fetch(request('/block/detail?h=5', 'any'))),
    );
    expect(answers.some((a) => a.upstream === 'u0')).toBe(true);
    expect(answers.some((a) => a.upstream === 'u1')).toBe(true);
  });

  it('falls back to the highest healthy upstream, marked, when no fresh one can take a head request', async () => {
    const { pool } = await setup();
    fakes[1]!.setHandler((_req, res) => sendJson(res, 500, '{}'));
    await expect(pool.fetch(request('/tx/list/pending', 'head'))).resolves.toMatchObject({
      upstream: 'u0',
      laggingFallback: true,
    });
    expect(pool.status()[1]!.breaker).toBe('open'); // breakerFailures 1
    const res = await pool.fetch(request('/tx/list/pending', 'head'));
    expect(res).toMatchObject({ upstream: 'u0', laggingFallback: true });
  });

  it('a lagging upstream that catches up is used again for head requests', async () => {
    const { pool } = await setup();
    fakes[0]!.setHandler(chainHandler('u0', { value: 100 }));
    await pool.probeNow();
    expect(pool.status()[0]!.lagging).toBe(false);
    fakes[1]!.setHandler((_req, res) => sendJson(res, 500, '{}')); // u1 fails once: its breaker opens
    await pool.fetch(request('/block/max', 'head'));
    const res = await pool.fetch(request('/block/max', 'head'));
    expect(res.upstream).toBe('u0');
    expect(res.laggingFallback).toBeUndefined();
  });
});
