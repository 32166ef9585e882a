/**
 * The status page tells the truth, in headless Chromium against a real proxy
 * and a fake upstream: the hit-ratio line has a gap over idle time (not a
 * straight line across it); "answers by status" counts the 429s (its totals
 * are the counters' totals); READY says when it serves from the cache during
 * an outage; an upstream's last error carries its age, also once it is up
 * again. /status numbers are rounded and carry the version. DOM conditions
 * are awaited; the idle stretch is real time (the page's trailing window).
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ProxyHandle } from '../../src/app.js';
import { roundNumber } from '../../src/http/ops-routes.js';
import { startFakeUpstream, sendJson, serveFixtures, waitFor, type FakeUpstream } from '../helpers/fake-upstream.js';
import { artifactPath, describeChromium, launchChromium } from '../helpers/chromium.js';
import { startTestProxy } from '../helpers/proxy.js';
import { metric } from '../helpers/proxy-kit.js';

const WAIT = { timeout: 30_000 };
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
const KEY = 'tiny-key-0123456789';

interface El {
  textContent: string | null;
  getAttribute(name: string): string | null;
}
declare const document: { querySelector(selector: string): El | null };

it('rounds non-integers: 2 decimals from 1 up, 3 significant digits below', () => {
  expect(roundNumber(1.4084010000078706)).toBe(1.41);
  expect(roundNumber(1234.5678)).toBe(1234.57);
  expect(roundNumber(0.83333)).toBe(0.833);
  expect(roundNumber(0.000123456)).toBe(0.000123);
  expect(roundNumber(4842066)).toBe(4842066);
  expect(roundNumber(-2.345)).toBe(-2.35);
});

describeChromium()('the status page tells the truth', () => {
  let up: FakeUpstream;
  let proxy: ProxyHandle;
  let browser: Browser;
  let page: Page;
  let probeFails = false;
  const fixtures = serveFixtures();

  beforeAll(async () => {
    up = await startFakeUpstream((req, res) => {
      if (probeFails) return sendJson(res, 500, '{"code":500,"msg":"down","data":null}');
      return fixtures(req, res);
    });
    proxy = await startTestProxy([up.url], {
      upstream: { probeIntervalMs: 200, probeDenseMs: 0, maxAttempts: 1, hedgeAfterMs: 0 },
      rateLimit: { enabled: true, max: 100_000 },
      apiKeys: [{ name: 'tiny', key: KEY, max: 1 }],
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${proxy.url}/dashboard`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await up?.close();
  });

  /** `n` requests, one every 100 ms (hits after the first). */
  async function traffic(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      await (await fetch(`${proxy.url}/block/list`)).arrayBuffer();
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const attr = (p: Page, selector: string, name: string) =>
    p.evaluate(([s, a]) => document.querySelector(s!)?.getAttribute(a!) ?? null, [selector, name]);
  const text = (p: Page, selector: string) =>
    p.evaluate((s) => document.querySelector(s)?.textContent ?? null, selector);

  it('answers by status count the 429s: the table totals what the counters total', async () => {
    await traffic(5);
    for (let i = 0; i < 4; i++)
      await (await fetch(`${proxy.url}/block/list`, { headers: { 'x-api-key': KEY } })).arrayBuffer();
    await (await fetch(`${proxy.url}/tx/list?page=x`)).arrayBuffer();
    const limited = await metric(proxy.url, 'rate_limited_total');
    expect(limited).toBe(3);
    const fourxx =
      (await metric(proxy.url, 'requests_total', { status_class: '4xx' })) +
      (await metric(proxy.url, 'page_requests_total', { status_class: '4xx' }));
    expect(fourxx).toBe(4);
    await page.waitForFunction(
      (n) => (document.querySelector('#statuses tr[data-counter="4xx"] td.num')?.textContent ?? '').startsWith(`${n} `),
      fourxx,
      WAIT,
    );
    expect(await text(page, '#counters tr[data-counter="rate-limited"] td.num')).toBe('3');
  });

  it('draws the hit ratio with a gap over idle time, not a straight line across it', async () => {
    // Idle longer than the line's 10 s trailing window, then traffic again.
    await waitFor(
      async () => (await attr(page, '#chart-hit', 'data-segments')) === '1',
      30_000,
      'one run of the hit-ratio line',
    );
    await page.waitForFunction(
      () => document.querySelector('#chart-hit')?.getAttribute('data-idle') === 'true',
      undefined,
      WAIT,
    );
    expect(await attr(page, '#chart-hit', 'data-segments')).toBe('1');
    await traffic(20);
    await page.waitForFunction(
      () => Number(document.querySelector('#chart-hit')?.getAttribute('data-segments')) >= 2,
      undefined,
      WAIT,
    );
    expect(Number(await attr(page, '#chart-hit', 'data-lines'))).toBe(1);
    await page.screenshot({ path: artifactPath('status-truth-gap.png'), fullPage: true });
  }, 60_000);

  it(
    'READY says it serves from the cache during an outage, ' + 'and the last error carries its age, also once up again',
    async () => {
      probeFails = true;
      await page.waitForFunction(
        () => document.querySelector('#ready')?.textContent === 'yes: from cache',
        undefined,
        WAIT,
      );
      expect(await text(page, '#ready-why')).toBe('no up-to-date upstream: serving what the cache holds');
      probeFails = false;
      await page.waitForFunction(
        () => document.querySelector('#upstreams tr[data-upstream="u0"]')?.getAttribute('data-state') === 'up',
        undefined,
        WAIT,
      );
      await page.waitForFunction(() => document.querySelector('#ready')?.textContent === 'yes', undefined, WAIT);
      const err = await text(page, '#upstreams tr[data-upstream="u0"] td.err');
      expect(err).toMatch(/^UPSTREAM_ERROR: HTTP 500 \(\d+s ago\)$/);
      await page.screenshot({ path: artifactPath('status-truth-ready.png'), fullPage: true });
    },
    60_000,
  );

  it('/status says the version, and its numbers are rounded', async () => {
    const body = await (await fetch(`${proxy.url}/status`)).text();
    const status = JSON.parse(body) as {
      data: { version: string; upstreams: Array<{ latencyP50Ms: number | null; lastErrorAgoMs: number | null }> };
    };
    expect(status.data.version).toBe(VERSION);
    expect(status.data.upstreams[0]!.lastErrorAgoMs).toEqual(expect.any(Number));
    expect(status.data.upstreams[0]!.latencyP50Ms).toEqual(expect.any(Number));
    for (const m of body.matchAll(/[:\[,](-?\d+\.(\d+))(?=[,}\]])/g)) {
      const n = Number(m[1]);
      expect(Math.abs(n) >= 1 ? m[2]!.length <= 2 : true, m[1]).toBe(true);
      expect(String(roundNumber(n)), m[1]).toBe(m[1]);
    }
    expect(await text(page, '#version')).toBe(VERSION);
  });
});
