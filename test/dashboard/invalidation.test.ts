/**
 * The status page's precise invalidation lines in headless Chromium: how far
 * the blocks are read, how many fell back, and the facts not trusted by
 * reason (from /status). An answer about a block above the head is one.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { describeChromium, launchChromium } from '../helpers/chromium.js';
import { get, startReplica, type Replica } from '../helpers/replica.js';
import { covered, PRECISE } from '../invalidation/kit.js';

const WAIT = { timeout: 30_000 };

/** The DOM as the page function below uses it (the project compiles without the DOM lib). */
declare const document: { querySelector(selector: string): { textContent: string | null } | null };

describeChromium()('status page: precise invalidation', () => {
  let sim: SimulatorHandle;
  let proxy: Replica;
  let browser: Browser;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 1, blockIntervalMs: 0 });
    proxy = await startReplica([sim.url], { upstream: { probeIntervalMs: 50 }, invalidation: PRECISE });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await sim?.close();
  });

  it('shows the blocks read, the fallbacks and the facts not trusted by reason', async () => {
    const head = sim.chain.head();
    await covered(proxy, head);
    await get(proxy.url, `/tx/list?block_height=${head + 3}&page=1&page_size=100`);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    expect((await page.goto(`${proxy.url}/dashboard`))?.status()).toBe(200);
    await page.waitForFunction(
      () =>
        (document.querySelector('#guarded tr[data-guard="future-height"] td:nth-child(2)')?.textContent ?? '') === '1',
      undefined,
      WAIT,
    );
    expect(await page.locator('#invalidation').textContent()).toMatch(
      /^blocks read up to \S+, 0 fell back to the head rule$/,
    );
    expect(await page.locator('#guarded tr[data-guard]').count()).toBe(6);
    expect(await page.locator('#guarded tr[data-guard="cross-check"] td').nth(1).textContent()).toBe('0');
    expect(await page.locator('#guarded tr[data-guard="future-height"] td').first().textContent()).toBe(
      'future-height: an answer about a block above the head',
    );
    expect(errors).toEqual([]);
  });
});
