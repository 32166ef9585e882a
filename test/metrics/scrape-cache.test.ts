/**
 * Repeated scrapes are cheap: /metrics renders at most once per
 * METRICS_CACHE_MS and serves that rendering in between (the throughput
 * figures are in the bench); with 0 every scrape renders.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { get, startEnv, type Env } from '../helpers/proxy-kit.js';

const requestsTotal = (text: string): number =>
  text
    .split('\n')
    .filter((l) => l.startsWith('chainproxy_requests_total{'))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

describe('/metrics rendering under repeated scrapes', () => {
  let env: Env | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  it('scrapes within the window get the same rendering, concurrent ones included', async () => {
    env = await startEnv({ patch: { metricsCacheMs: 60_000 } });
    const first = await get(env.base, '/metrics');
    await get(env.base, '/token/list');
    const burst = await Promise.all(Array.from({ length: 20 }, () => get(env!.base, '/metrics')));
    for (const g of burst) {
      expect(g.status).toBe(200);
      expect(g.text).toBe(first.text);
    }
  });

  it('with METRICS_CACHE_MS=0 every scrape is current', async () => {
    env = await startEnv({ patch: { metricsCacheMs: 0 } });
    const before = requestsTotal((await get(env.base, '/metrics')).text);
    await get(env.base, '/token/list');
    expect(requestsTotal((await get(env.base, '/metrics')).text)).toBe(before + 1);
  });
});
