/**
 * The status page in headless Chromium against a proxy with two simulators:
 * it fills itself from /status and /dashboard/data.json, then shows the
 * killed simulator going down (DOM conditions awaited, no sleeps). The page
 * loads nothing from anywhere else and logs no errors. A screenshot is kept
 * in test-artifacts/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ProxyHandle } from '../../src/app.js';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { artifactPath, describeChromium, launchChromium } from '../helpers/chromium.js';
import { startTestProxy } from '../helpers/proxy.js';

const WAIT = { timeout: 30_000 };

/** The DOM as the page functions below use it (the project compiles without the DOM lib). */
interface El {
  textContent: string | null;
}
declare const document: { querySelectorAll(selector: string): ArrayLike<El>; getElementById(id: string): El | null };

describeChromium()('status page in Chromium', () => {
  let sims: SimulatorHandle[] = [];
  let proxy: ProxyHandle;
  let browser: Browser;
  let page: Page;
  const foreign: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    sims = await Promise.all([0, 1].map(() => startSimulator({ blockIntervalMs: 0, seed: 7 })));
    proxy = await startTestProxy(
      sims.map((s) => s.url),
      { upstream: { probeIntervalMs: 100, breakerFailures: 2, breakerCooldownMs: 60_000, hedgeAfterMs: 0 } },
    );
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
    await browser?.close();
    await proxy?.close();
    await Promise.all(sims.map((s) => s.close()));
  });

  it('shows both upstreams up, the heights and the traffic of the last minute', async () => {
    const res = await page.goto(`${proxy.url}/dashboard`);
    expect(res?.status()).toBe(200);
    await page.waitForFunction(() => document.querySelectorAll('#upstreams tr[data-state="up"]').length === 2, undefined, WAIT);
    expect(await page.locator('#conn').textContent()).toBe('live');
    await page.waitForFunction(() => /\d/.test(document.getElementById('best-head')?.textContent ?? ''), undefined, WAIT);
    expect(await page.locator('tr[data-tier="memory"]').count()).toBe(1);
    expect(await page.locator('#redis').textContent()).toBe('not configured');
    // traffic: one miss then hits on the same key
    for (let i = 0; i < 10; i++) await fetch(`${proxy.url}/block/list`);
    await page.waitForFunction(() => (document.getElementById('hit-ratio')?.textContent ?? '').endsWith('%'), undefined, WAIT);
    const ratio = parseFloat((await page.locator('#hit-ratio').textContent()) ?? '');
    expect(ratio).toBeGreaterThan(0);
    expect(ratio).toBeLessThan(100);
    expect(parseFloat((await page.locator('#req-rate').textContent()) ?? '')).toBeGreaterThan(0);
  });

  it('shows a killed simulator going down, and says so in recent errors', async () => {
    await sims[1]!.close();
    await page.waitForSelector('#upstreams tr[data-upstream="u1"][data-state="down"]', WAIT);
    expect(await page.locator('#upstreams tr[data-upstream="u0"]').getAttribute('data-state')).toBe('up');
    await page.waitForFunction(() => Array.from(document.querySelectorAll('#errors li')).some((li) => (li.textContent ?? '').includes('u1 is down')), undefined, WAIT);
    await page.screenshot({ path: artifactPath('dashboard-upstream-down.png'), fullPage: true });
  });

  it('loaded nothing from elsewhere and logged no errors', () => {
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
