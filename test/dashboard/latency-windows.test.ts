/**
 * The status page shows two upstream p99 figures: the card and chart (every
 * upstream's answers of the last seconds) and the upstream table (one
 * upstream's last answers). Each names its window, as served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, startEnv, type Env } from '../helpers/proxy-kit.js';

describe('status page latency windows', () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env.close();
  });

  it('names the window of each p99', async () => {
    const page = await get(env.base, '/dashboard');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Upstream p99 (all upstreams, last 5 s)');
    expect(page.text).toContain('Upstream latency (ms; all upstreams, last 5 s at each point)');
    expect(page.text).toContain('Upstreams <span class="latency-window">(p50, p99: its last 64 answers)</span>');
  });
});
