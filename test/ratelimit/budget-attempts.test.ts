/**
 * A client's miss budget bounds every upstream request its misses cause, not
 * only the first attempt of each: the retries (and hedges, confirmations) of
 * a fetch it leads are charged to it too, and an attempt it cannot pay for is
 * not made. One client spending its budget on distinct cold pages, while three
 * parts of each page fail and would be retried, causes at most its budget
 * plus one page's parts upstream (in fact within its budget).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { normalAddress } from '../../src/sim/ids.js';
import { startPagesEnv, type PagesEnv } from '../pages/kit.js';
import { get } from '../helpers/proxy-kit.js';

let env: PagesEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const BUDGET = 8;
const as = (ip: string) => ({ 'x-forwarded-for': ip });
const patch = {
  trustProxy: ['127.0.0.1'],
  missBudget: BUDGET,
  upstream: { maxAttempts: 3 },
  rateLimit: { enabled: true, max: 1000, windowMs: 60_000 },
};
/** Upstream requests that name one of the attack's addresses. */
const caused = (e: PagesEnv, n: number): number =>
  e.seen.filter((s) => Array.from({ length: n }, (_, i) => normalAddress(1, 40 + i)).some((a) => s.url.includes(a)))
    .length;

describe('the miss budget bounds the upstream requests a client causes', () => {
  it('distinct cold pages with failing parts: at most the budget plus one page of parts upstream', async () => {
    env = await startPagesEnv(patch);
    for (const failing of ['tx/listByAddress', 'tx/nrc20', 'nax/profits']) env.faults.set(failing, { status: 503 });
    const n = 6;
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) {
      const g = await get(env.base, `/pages/address?address=${normalAddress(1, 40 + i)}`, {
        headers: as('203.0.113.7'),
      });
      statuses.push(g.status);
    }
    expect(statuses.at(-1)).toBe(429);
    // Every attempt is paid for before it starts: within the budget itself (the target allows one page more).
    expect(caused(env, n)).toBeLessThanOrEqual(BUDGET);
    // The retries were paid for: fewer pages were admitted than four parts each would allow.
    expect(statuses.filter((s) => s === 200).length).toBe(1);
  });

  it('a direct request whose fetch is retried pays for each attempt', async () => {
    env = await startPagesEnv({ ...patch, missBudget: 4 });
    env.faults.set('nax/profits', { status: 503 });
    const path = (i: number) => `/nax/profits?address=${normalAddress(1, 40 + i)}`;
    const first = await get(env.base, path(0), { headers: as('203.0.113.8') });
    expect(first.status).toBe(502);
    expect(env.count('nax/profits')).toBe(3);
    // One left: the next fetch makes its first attempt only.
    const second = await get(env.base, path(1), { headers: as('203.0.113.8') });
    expect(second.status).toBe(502);
    expect(env.count('nax/profits')).toBe(4);
    const spent = await get(env.base, path(2), { headers: as('203.0.113.8') });
    expect(spent.status).toBe(429);
    expect(env.count('nax/profits')).toBe(4);
  });
});
