/**
 * The miss budget follows the request limit when it is not set: one fifth of
 * RATE_LIMIT_MAX, rounded up (120 of 600 with the defaults). An operator who
 * lowers RATE_LIMIT_MAX to 40 lowers the upstream work a scraper of
 * /pages/address can cause (each part that leads is charged one miss) to at
 * most 1.5 upstream requests per admitted request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { helpText } from '../../src/config/help.js';
import { normalAddress } from '../../src/sim/ids.js';
import { tempFile } from '../config/helpers.js';
import { fakeClock } from '../helpers/clock.js';
import { startPagesEnv, type PagesEnv } from '../pages/kit.js';
import { get } from '../helpers/proxy-kit.js';

let env: PagesEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const PARTS = ['address/info', 'tx/listByAddress', 'tx/nrc20', 'nax/profits'];

describe('RATE_LIMIT_MISS_BUDGET unset', () => {
  it('is one fifth of RATE_LIMIT_MAX, rounded up, from the environment or the file; set, it stays as set', () => {
    expect(loadConfig({}).missBudget).toBe(120);
    expect(loadConfig({ RATE_LIMIT_MAX: '40' }).missBudget).toBe(8);
    expect(loadConfig({ RATE_LIMIT_MAX: '41' }).missBudget).toBe(9);
    expect(loadConfig({ RATE_LIMIT_MAX: '1' }).missBudget).toBe(1);
    expect(loadConfig({ RATE_LIMIT_MAX: '40', RATE_LIMIT_MISS_BUDGET: '30' }).missBudget).toBe(30);
    expect(loadConfig({ RATE_LIMIT_MAX: '40', RATE_LIMIT_MISS_BUDGET: '0' }).missBudget).toBe(0);
    expect(loadConfig({ CONFIG_FILE: tempFile('.yaml', 'rateLimit: { max: 50 }\n') }).missBudget).toBe(10);
    expect(loadConfig({ CONFIG_FILE: tempFile('.yaml', 'rateLimit: { max: 50 }\nmissBudget: 3\n') }).missBudget).toBe(
      3,
    );
  });

  it('--help says so', () => {
    const help = helpText();
    expect(/\n {2}RATE_LIMIT_MISS_BUDGET .*\n +default: (.*)\n/.exec(help)?.[1]).toBe(
      'RATE_LIMIT_MAX / 5, rounded up (120)',
    );
    expect(help).toContain('Unset: one fifth of RATE_LIMIT_MAX (rounded up)');
  });

  it('with RATE_LIMIT_MAX=40 a page scraper causes at most 1.5 upstream requests per admitted request', async () => {
    const c = loadConfig({ RATE_LIMIT_MAX: '40' });
    // Frozen: no refill while the scraper runs, so every number below is exact.
    const clock = fakeClock();
    env = await startPagesEnv({ rateLimit: c.rateLimit, missBudget: c.missBudget }, clock.now);
    let admitted = 0;
    let limited = 0;
    for (let i = 0; i < 60; i++) {
      const r = await get(env.base, `/pages/address?address=${normalAddress(1, 100 + i)}`);
      if (r.status === 429 && (r.json as { code: number }).code === 4290) limited++;
      else admitted++;
    }
    expect([admitted, limited]).toEqual([40, 20]);
    const caused = PARTS.reduce((n, p) => n + env!.count(p), 0);
    // Every part that led was charged: exactly the budget, 8 of 160 cold parts.
    expect(caused).toBe(8);
    expect(caused / admitted).toBeLessThanOrEqual(1.5);
  });
});
