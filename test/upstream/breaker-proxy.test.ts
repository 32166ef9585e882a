/**
 * An upstream failing every request opens its breaker (shown on
 * /status) while clients keep getting answers from the others; once the faults
 * are cleared, the half-open probe after the cooldown closes it again.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/fake-upstream.js';
import { get, upstreamStatus, simulatorTrio } from '../helpers/replica.js';

const trio = simulatorTrio();

describe('circuit breaker through the proxy', () => {
  it('opens on a failing upstream, probes half-open and closes once it recovers', async () => {
    const { sims, proxy } = await trio.start({
      upstream: { probeIntervalMs: 50, breakerFailures: 3, breakerCooldownMs: 400, hedgeAfterMs: 0 },
    });
    expect((await upstreamStatus(proxy.url))[0]!.breaker).toBe('closed');

    sims[0]!.setFaults({ errorRate: 1, kind: 'http500' });
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => get(proxy!.url, `/block/detail?h=${4_841_200 + i}`)),
    );
    expect(answers.filter((a) => a.status !== 200).map((a) => a.text)).toEqual([]);
    expect(sims[0]!.stats()._faults ?? 0).toBeGreaterThan(0);

    await waitFor(async () => (await upstreamStatus(proxy!.url))[0]!.breaker === 'open', 5000, 'u0 breaker open');
    const open = (await upstreamStatus(proxy.url))[0]!;
    expect(open.healthy).toBe(false);
    // While it keeps failing, the half-open trial after the cooldown (a probe) fails and reopens it.
    const state = () => proxy!.pool.status()[0]!.breaker;
    await waitFor(() => state() === 'half-open', 5000, 'u0 breaker half-open after the cooldown');
    await waitFor(() => state() === 'open', 5000, 'u0 breaker reopened by the failed trial');

    sims[0]!.setFaults({});
    await waitFor(
      async () => (await upstreamStatus(proxy!.url))[0]!.breaker === 'closed',
      5000,
      'u0 breaker closed again',
    );
    await waitFor(async () => (await upstreamStatus(proxy!.url))[0]!.healthy, 5000, 'u0 healthy again');

    // Back in rotation: a burst of cold keys reaches u0 again.
    const before = sims[0]!.stats()['block/detail'] ?? 0;
    const again = await Promise.all(
      Array.from({ length: 12 }, (_, i) => get(proxy!.url, `/block/detail?h=${4_841_400 + i}`)),
    );
    expect(again.every((a) => a.status === 200)).toBe(true);
    expect((sims[0]!.stats()['block/detail'] ?? 0) - before).toBeGreaterThan(0);
  });
});
