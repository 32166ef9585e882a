/**
 * The status page's fleet section in headless Chromium: three replicas on one
 * real redis-server, one of them on another PUBLIC_BASE_URL. The page of a
 * replica lists all three (itself marked), flags the one on the other
 * namespace and says the namespaces differ; once that one stops, the warning
 * goes. DOM conditions are awaited, no sleeps.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { artifactPath, describeChromium, launchChromium } from '../helpers/chromium.js';
import { describeRedis, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { startReplica, type Replica } from '../helpers/replica.js';

const WAIT = { timeout: 30_000 };

interface El {
  textContent: string | null;
  className: string;
}
declare const document: { querySelectorAll(selector: string): ArrayLike<El>; getElementById(id: string): El | null };

const describeBoth = describeRedis() === describe.skip ? describe.skip : describeChromium();

describeBoth('status page: the fleet', { timeout: 120_000 }, () => {
  let redis: RedisServer;
  let sim: SimulatorHandle;
  let replicas: Replica[] = [];
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    [redis, sim] = await Promise.all([startRedisServer(), startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 })]);
    for (const publicBaseUrl of ['https://api.example.test', 'https://api.example.test', 'http://localhost:8081']) {
      // The odd one's clock also runs an hour ahead.
      const clock = publicBaseUrl.startsWith('http:') ? () => Date.now() + 3_600_000 : undefined;
      replicas.push(
        await startReplica([sim.url], { redisUrl: redis.url, publicBaseUrl, redis: { heartbeatMs: 1000 } }, clock),
      );
    }
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all(replicas.map((r) => r.close()));
    replicas = [];
    await Promise.all([sim?.close(), redis?.stop()]);
  });

  it('lists the members, marks this one and flags the one on another PUBLIC_BASE_URL', async () => {
    const [a, , odd] = replicas;
    expect((await page.goto(`${a!.url}/dashboard`))?.status()).toBe(200);
    await page.waitForFunction(
      () => document.querySelectorAll('#fleet-members tbody tr').length === 3,
      undefined,
      WAIT,
    );
    expect(await page.locator('#fleet').getAttribute('class')).toBe('');
    expect(await page.locator('#fleet-summary').textContent()).toBe('3 replicas on this Redis');
    const oddId = odd!.fleet!.members.view().replicaId;
    expect(await page.locator(`#fleet-members tr[data-replica="${oddId}"]`).getAttribute('data-namespace')).toBe(
      'other',
    );
    expect(await page.locator(`#fleet-members tr[data-replica="${oddId}"] .pill`).textContent()).toBe(
      'other namespace',
    );
    expect(await page.locator('#fleet-members tr[data-namespace="same"]').count()).toBe(2);
    const selfId = a!.fleet!.members.view().replicaId;
    expect(await page.locator(`#fleet-members tr[data-replica="${selfId}"] td`).first().textContent()).toBe(
      `${selfId.slice(0, 8)} (this one)`,
    );
    // Its turn in the fleet (leader, follower, or alone while it hears no leader), as it said at its last beat.
    expect(['leader', 'follower', 'alone']).toContain(
      await page.locator(`#fleet-members tr[data-replica="${selfId}"] td`).nth(1).textContent(),
    );
    expect(await page.locator('#fleet-mismatch').getAttribute('class')).toBe('on');
    expect(await page.locator('#fleet-mismatch').textContent()).toBe(
      'Namespace mismatch: 1 of the other replicas has another PUBLIC_BASE_URL ' +
        'than this one (https://api.example.test), so they share no cached entries ' +
        'with it. Give every replica of the fleet the same PUBLIC_BASE_URL.',
    );
    // Its clock skew from this replica's, flagged past the bound (known from its second heartbeat).
    await page.waitForFunction(
      () => document.querySelectorAll('#fleet-members td[data-skew="past"]').length === 1,
      undefined,
      WAIT,
    );
    expect(await page.locator(`#fleet-members tr[data-replica="${oddId}"] td[data-skew]`).textContent()).toMatch(
      /^\+3600\.\d s$/,
    );
    expect(await page.locator(`#fleet-members tr[data-replica="${selfId}"] td[data-skew]`).textContent()).toBe('-');
    await page.screenshot({ path: artifactPath('dashboard-fleet-mismatch.png'), fullPage: true });
  });

  it('drops the warning once the odd replica is gone', async () => {
    await replicas[2]!.close();
    await page.waitForFunction(
      () => document.querySelectorAll('#fleet-members tbody tr').length === 2,
      undefined,
      WAIT,
    );
    await page.waitForFunction(() => document.getElementById('fleet-mismatch')?.className === '', undefined, WAIT);
    expect(await page.locator('#fleet-members tr[data-namespace="other"]').count()).toBe(0);
    expect(await page.locator('#fleet-summary').textContent()).toBe('2 replicas on this Redis');
  });

  it('logged no errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
