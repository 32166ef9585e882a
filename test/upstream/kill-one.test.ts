/** One of three upstreams closed mid-traffic: no client error, every answer a real MISS. */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/fake-upstream.js';
import { get, limited, upstreamStatus, type Got, simulatorTrio } from '../helpers/replica.js';

const trio = simulatorTrio();

describe('three simulators, one killed mid-traffic', () => {
  it('answers every request of a few hundred cold keys', async () => {
    const { sims, proxy } = await trio.start({
      upstream: { probeIntervalMs: 50, breakerFailures: 2, breakerCooldownMs: 60_000, hedgeAfterMs: 0 },
    });
    expect((await upstreamStatus(proxy.url)).map((u) => u.healthy)).toEqual([true, true, true]);

    const total = 300;
    const paths = Array.from({ length: total }, (_, i) =>
      i % 2 === 0 ? `/block/detail?h=${4_841_500 + i}` : `/tx/list?page=${i + 1}&page_size=10`,
    );
    let done = 0;
    let killed: Promise<void> | undefined;
    const answers = await limited(total, 8, async (i): Promise<Got> => {
      const r = await get(proxy!.url, paths[i]!);
      done++;
      // Close u0 while requests are in flight (its sockets are destroyed under them).
      if (done === 100) killed = sims[0]!.close();
      return r;
    });
    await killed;

    const failures = answers
      .map((a, i) => ({ path: paths[i], status: a.status, body: a.status === 200 ? '' : a.text }))
      .filter((a) => a.status !== 200);
    expect(failures).toEqual([]);
    expect(answers.every((a) => a.cache === 'MISS')).toBe(true);
    // u0 took part before it died, the others served the rest.
    expect(sims[0]!.stats()._total ?? 0).toBeGreaterThan(0);
    await waitFor(async () => (await upstreamStatus(proxy!.url))[0]!.healthy === false, 5000, 'u0 reported unhealthy');
    const status = await upstreamStatus(proxy.url);
    expect(status.slice(1).map((u) => u.healthy)).toEqual([true, true]);
  });
});
