/**
 * The status page in headless Chromium against a proxy with three simulators
 * (one claiming a head far ahead, which the others refute: it is benched)
 * and UPSTREAM_QUORUM 2, under a little traffic: it draws the last minutes as SVG charts and fills
 * the per-endpoint, status and counter tables from the proxy's history; a
 * killed simulator shows as down and as a grouped event; a reload keeps the
 * history (it lives in the proxy). DOM conditions are awaited, no sleeps. The
 * page loads nothing from anywhere else and logs no errors (CSP violations
 * included). Screenshots are kept in test-artifacts/.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ProxyHandle } from '../../src/app.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { artifactPath, describeChromium, launchChromium } from '../helpers/chromium.js';
import { startTestProxy } from '../helpers/proxy.js';

const WAIT = { timeout: 30_000 };
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
/** Blocks the lying upstream claims beyond the others. */
const LIAR_AHEAD = 50_000;
const PATHS = [
  '/block/list',
  '/block/max',
  '/tx/list?page_size=5',
  '/tx/list/pending',
  '/chain/summary',
  '/token/list',
  '/tx/list?page=0',
  '/nope',
];

/** The DOM as the page functions below use it (the project compiles without the DOM lib). */
interface El {
  textContent: string | null;
  getAttribute(name: string): string | null;
}
declare const document: {
  querySelectorAll(selector: string): ArrayLike<El>;
  getElementById(id: string): El | null;
  querySelector(selector: string): El | null;
};

describeChromium()('status page in Chromium', { timeout: 120_000 }, () => {
  let sims: SimulatorHandle[] = [];
  let proxy: ProxyHandle;
  let browser: Browser;
  let page: Page;
  let traffic: Promise<void> = Promise.resolve();
  let stopped = false;
  const foreign: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const startTime = Date.now();
    sims = await Promise.all([0, 1, 2].map(() => startSimulator({ blockIntervalMs: 0, seed: 7, startTime })));
    // u2 claims a head far ahead that u0 and u1 refute: it is benched.
    sims[2]!.chain.advance(LIAR_AHEAD);
    proxy = await startTestProxy(
      sims.map((s) => s.url),
      {
        upstream: {
          probeIntervalMs: 100,
          breakerFailures: 2,
          breakerCooldownMs: 60_000,
          hedgeAfterMs: 0,
          quorum: 2,
          sitOutMs: 600_000,
        },
      },
      undefined,
      { upstreamIsSimulator: true },
    );
    // A steady mix: hits, misses, a 400 and a 404, new blocks now and then.
    traffic = (async () => {
      for (let i = 0; !stopped; i++) {
        if (i % 40 === 0) for (const s of sims) s.chain.advance(1);
        const res = await fetch(`${proxy.url}${PATHS[i % PATHS.length]!}`).catch(() => null);
        await res?.arrayBuffer();
        await new Promise((r) => setTimeout(r, 15));
      }
    })();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('request', (r) => {
      if (!r.url().startsWith(proxy.url)) foreign.push(r.url());
    });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
  }, 60_000);

  afterAll(async () => {
    stopped = true;
    await traffic;
    await browser?.close();
    await proxy?.close();
    await Promise.all(sims.map((s) => s.close()));
  });

  it('draws the traffic as charts and fills the endpoint, status and counter tables', async () => {
    const res = await page.goto(`${proxy.url}/dashboard`);
    expect(res?.status()).toBe(200);
    await page.waitForFunction(
      () => document.querySelectorAll('#upstreams tr[data-state="up"]').length === 2,
      undefined,
      WAIT,
    );
    expect(await page.locator('#conn').textContent()).toBe('live');
    expect(await page.locator('#version').textContent()).toBe(VERSION);
    expect(await page.locator('#banner').getAttribute('class')).toBe('on');
    await page.waitForFunction(
      () => /\d/.test(document.getElementById('best-head')?.textContent ?? ''),
      undefined,
      WAIT,
    );
    // Enough history for the charts to say something (the page holds up to 15 minutes).
    await page.waitForFunction(
      () => Number(document.getElementById('chart-rate')?.getAttribute('data-points') ?? 0) >= 20,
      undefined,
      WAIT,
    );
    for (const id of ['chart-hit', 'chart-rate', 'chart-errors', 'chart-latency']) {
      await page.waitForFunction(
        (chart) => Number(document.getElementById(chart)?.getAttribute('data-lines') ?? 0) > 0,
        id,
        WAIT,
      );
    }
    await page.waitForFunction(
      () => (document.getElementById('hit-ratio')?.textContent ?? '').endsWith('%'),
      undefined,
      WAIT,
    );
    const ratio = parseFloat((await page.locator('#hit-ratio').textContent()) ?? '');
    expect(ratio).toBeGreaterThan(0);
    expect(ratio).toBeLessThan(100);
    expect(parseFloat((await page.locator('#req-rate').textContent()) ?? '')).toBeGreaterThan(0);
    await page.waitForSelector('#endpoints tr[data-endpoint="block/list"]', WAIT);
    expect(await page.locator('#endpoints tr[data-endpoint="block/list"] td').nth(2).textContent()).toMatch(
      /^\d+\.\d %$/,
    );
    await page.waitForFunction(
      () =>
        /^[1-9]/.test(document.querySelector('#statuses tr[data-counter="4xx"] td:nth-child(2)')?.textContent ?? ''),
      undefined,
      WAIT,
    );
    expect(await page.locator('tr[data-tier="memory"]').count()).toBe(1);
    expect(await page.locator('#redis').textContent()).toBe('not configured');
    // No Redis, no fleet: the section is hidden.
    expect(await page.locator('#fleet').getAttribute('class')).toBe('off');
    expect(await page.locator('#activity').textContent()).toMatch(
      /^0 open, 0 watched \(0 lingering\), history 0 B of 16\.0 MiB$/,
    );
    expect(await page.locator('#invalidation').textContent()).toBe('off (the head rule)');
    expect(await page.locator('#guarded tr[data-guard]').count()).toBe(0);
    await page.screenshot({ path: artifactPath('dashboard-traffic.png'), fullPage: true });
  });

  it('shows the upstream whose head was refuted as benched, and the quorum', async () => {
    await page.waitForSelector('#upstreams tr[data-upstream="u2"][data-state="benched"]', WAIT);
    expect(await page.locator('#upstreams tr[data-upstream="u2"] td.err').textContent()).toMatch(
      /^benched until \d\d:\d\d:\d\d \(head\): /,
    );
    expect(await page.locator('#upstreams tr[data-upstream="u2"] .pill').first().textContent()).toBe('benched');
    await page.waitForSelector('#events li[data-kind="upstream u2 benched (sits out)"]', WAIT);
    expect(await page.locator('#consensus').getAttribute('class')).toBe('');
    expect(await page.locator('#quorum').textContent()).toBe('2');
    expect(await page.locator('#disputes').textContent()).toBe('0');
    expect(await page.locator('#counters tr[data-counter="quorum-disputes"] td').nth(1).textContent()).toBe('0');
    expect(await page.locator('#counters tr[data-counter="miss-budget-refused"]').count()).toBe(1);
    await page.screenshot({ path: artifactPath('dashboard-benched.png'), fullPage: true });
  });

  it('shows a killed simulator down, as one grouped event', async () => {
    const before = Number(await page.locator('#chart-rate').getAttribute('data-points'));
    await sims[1]!.close();
    await page.waitForSelector('#upstreams tr[data-upstream="u1"][data-state="down"]', WAIT);
    expect(await page.locator('#upstreams tr[data-upstream="u0"]').getAttribute('data-state')).toBe('up');
    await page.waitForSelector('#events li[data-kind="upstream u1 down"]', WAIT);
    expect(await page.locator('#events li[data-kind="upstream u1 down"]').count()).toBe(1);
    expect(await page.locator('#events li[data-kind="upstream u0 up again"]').count()).toBe(0);
    // Ten more seconds of traffic served by u0 alone before the picture.
    await page.waitForFunction(
      (n) => Number(document.getElementById('chart-rate')?.getAttribute('data-points') ?? 0) >= n + 10,
      before,
      WAIT,
    );
    await page.screenshot({ path: artifactPath('dashboard-upstream-down.png'), fullPage: true });
  });

  it('keeps the history across a reload', async () => {
    await page.reload();
    await page.waitForSelector('#events li[data-kind="upstream u1 down"]', WAIT);
    await page.waitForFunction(
      () => Number(document.getElementById('chart-rate')?.getAttribute('data-lines') ?? 0) > 0,
      undefined,
      WAIT,
    );
    await page.waitForSelector('#endpoints tr[data-endpoint="block/list"]', WAIT);
  });

  it('tells the purges: none, then the last one with its count', async () => {
    await page.waitForFunction(
      () => (document.getElementById('purges')?.textContent ?? '').startsWith('0 here, 0 from the fleet, 0 marks held'),
      undefined,
      WAIT,
    );
    await fetch(`${proxy.url}/token/detail?token=NAX`).then((r) => r.arrayBuffer());
    expect((await fetch(`${proxy.url}/purge?tag=token:NAX`, { method: 'POST' })).status).toBe(200);
    await page.waitForFunction(
      () => (document.getElementById('purges')?.textContent ?? '').startsWith('1 here'),
      undefined,
      WAIT,
    );
    expect(await page.locator('#purges').textContent()).toMatch(
      /^1 here, 0 from the fleet, 1 marks held; last \d\d:\d\d:\d\d: tag token:NAX \(hard\), 1 entries here$/,
    );
  });

  it('loaded nothing from elsewhere and logged no errors', () => {
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
