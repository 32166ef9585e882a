/**
 * Readiness means "this replica can serve": an up-to-date upstream answered
 * well within three probe intervals, or the cache can serve within its
 * stale-if-error policy. /readyz, /status and the status page share the
 * verdict; a 503 from /readyz carries Retry-After.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestProxy } from '../helpers/proxy.js';
import type { ProxyHandle } from '../../src/app.js';
import { envelope, get, sendJson, serveFixtures, waitFor, type Handler } from '../helpers/proxy-kit.js';
import { within } from '../helpers/until.js';

let up: FakeUpstream | undefined;
let proxy: ProxyHandle | undefined;
afterEach(async () => {
  await proxy?.close();
  await up?.close();
  proxy = undefined;
  up = undefined;
});

interface Status {
  ready: boolean;
  readyReason: string;
  lastGoodAnswerAgoMs: number | null;
}
const status = async (base: string): Promise<Status> => envelope(await get(base, '/status')).data as Status;

/** Fails the 2nd and 4th of every 5 requests (40 %) with a 500, probes included: never three in a row. */
function flaky(): Handler {
  const fixtures = serveFixtures();
  let n = 0;
  return (req, res) => {
    const i = n++ % 5;
    if (i === 1 || i === 3) return sendJson(res, 500, '{"code":500,"msg":"internal","data":null}');
    return fixtures(req, res);
  };
}

describe('readiness', () => {
  it('does not flap while the only upstream fails 40 % of requests with 500 and clients get 200', async () => {
    up = await startFakeUpstream(flaky());
    proxy = await startTestProxy([up.url], { upstream: { probeIntervalMs: 100, breakerFailures: 5 } });
    const base = proxy.url;
    await within(proxy.firstProbe, 'the first probe round');
    expect((await status(base)).ready, 'ready after a good first probe').toBe(true);
    const probesBefore = up.count('/block/max');
    const polls: number[] = [];
    const clients: number[] = [];
    let h = 1_000_000;
    // Until the upstream has been probed 20 more times (about 40 % of probes fail): clients and a load balancer
    // polling.
    while (up.count('/block/max') < probesBefore + 20) {
      const [client, ready] = await Promise.all([get(base, `/block/detail?h=${h++}`), get(base, '/readyz')]);
      clients.push(client.status);
      polls.push(ready.status);
    }
    expect(clients.length).toBeGreaterThan(12);
    expect(new Set(clients)).toEqual(new Set([200]));
    expect(polls.filter((s) => s !== 200)).toEqual([]);
    const s = await status(base);
    expect(s).toMatchObject({ ready: true, readyReason: 'upstream' });
  });

  it('an upstream that never answered: 503 with Retry-After, and /status says the same', async () => {
    const dead = await startFakeUpstream();
    const url = dead.url;
    await dead.close();
    proxy = await startTestProxy([url], {
      upstream: { probeIntervalMs: 100, connectTimeoutMs: 200, attemptTimeoutMs: 200, totalDeadlineMs: 400 },
    });
    const r = await get(proxy.url, '/readyz');
    expect(r.status).toBe(503);
    expect(r.header('retry-after')).toBe('1');
    expect(envelope(r)).toEqual({ code: 5033, msg: 'not ready: no healthy, up-to-date upstream', data: null });
    expect(await status(proxy.url)).toMatchObject({ ready: false, readyReason: 'no upstream has answered yet' });
  });

  it('an upstream gone for longer than three probe intervals: not ready with an empty cache', async () => {
    up = await startFakeUpstream();
    proxy = await startTestProxy([up.url], {
      upstream: { probeIntervalMs: 100, connectTimeoutMs: 200, attemptTimeoutMs: 200 },
    });
    const base = proxy.url;
    await within(proxy.firstProbe, 'the first probe round');
    expect((await status(base)).ready, 'ready after a good first probe').toBe(true);
    await up.close();
    up = undefined;
    await waitFor(
      async () => ((await status(base)).lastGoodAnswerAgoMs ?? 0) > 300,
      5000,
      'three probe intervals without a good answer',
    );
    const r = await get(base, '/readyz');
    expect(r.status).toBe(503);
    expect(r.header('retry-after')).toBe('1');
    expect((await status(base)).readyReason).toBe('no up-to-date upstream answered within 0.3 s');
  });

  it(
    'an upstream gone, but the cache holds answers within stale-if-error: ' +
      'still ready, and its cached answers are served',
    async () => {
      up = await startFakeUpstream();
      proxy = await startTestProxy([up.url], {
        upstream: { probeIntervalMs: 100, connectTimeoutMs: 200, attemptTimeoutMs: 200 },
      });
      const base = proxy.url;
      await within(proxy.firstProbe, 'the first probe round');
      expect((await status(base)).ready, 'ready after a good first probe').toBe(true);
      expect((await get(base, '/chain/summary')).status).toBe(200);
      await up.close();
      up = undefined;
      await waitFor(
        async () => ((await status(base)).lastGoodAnswerAgoMs ?? 0) > 300,
        5000,
        'three probe intervals without a good answer',
      );
      expect((await get(base, '/readyz')).status).toBe(200);
      expect(await status(base)).toMatchObject({ ready: true, readyReason: 'cache' });
      expect((await get(base, '/chain/summary')).status).toBe(200);
    },
  );
});
