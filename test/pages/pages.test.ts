/**
 * Every built-in page: each part's `data` is byte for byte what the part's
 * endpoint answers through a proxy (an independent proxy in front of the same
 * simulator), a cold page costs exactly one upstream request per distinct
 * part, a repeat costs none, and parts are shared with direct requests both ways.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyHandle } from '../../src/app.js';
import { TOKENS } from '../../src/sim/index.js';
import { normalAddress, txHash, blockHash } from '../../src/sim/ids.js';
import { startTestProxy } from '../helpers/proxy.js';
import { settableClock } from '../helpers/proxy-kit.js';
import { dataBytes, get, metaOf, partBytes, requestedParts, startPagesEnv, type PagesEnv } from './kit.js';

let env: PagesEnv;
let direct: ProxyHandle;
let head: number;

beforeAll(async () => {
  // A clock that stands still: nothing expires between the requests of a test, however slow the machine.
  env = await startPagesEnv({}, settableClock().now);
  direct = await startTestProxy([env.sim.url]);
  head = env.sim.chain.head();
});
afterAll(async () => {
  await direct.close();
  await env.close();
});

async function checkPage(path: string, expectParts: string[]): Promise<void> {
  env.mark();
  const page = await get(env.base, path);
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  expect(page.header('x-cache')).toBe('MISS');
  const m = metaOf(page);
  expect(m.head).toBe(head);
  const requested = requestedParts(m);
  expect(requested.sort()).toEqual([...expectParts].sort());
  // Cold: exactly one upstream request per distinct part not already cached (block/max is shared by pages).
  const missed = new Set(requested.filter((p) => m.parts[p]!.cache !== 'HIT').map((p) => m.parts[p]!.request!));
  for (const p of requested) expect(['MISS', 'HIT']).toContain(m.parts[p]!.cache);
  expect(env.seen.map((s) => s.url).sort()).toEqual([...missed].map((k) => `/${k}`).sort());

  for (const name of requested) {
    const key = m.parts[name]!.request!;
    const d = await get(direct.url, `/${key}`);
    expect(d.status).toBe(200);
    if ((page.json as { data: Record<string, unknown> }).data[name] !== undefined)
      expect(partBytes(page, name), name).toBe(dataBytes(d));
  }

  env.mark();
  const again = await get(env.base, path);
  expect(again.header('x-cache')).toBe('HIT');
  expect(env.count()).toBe(0);
  // The parts are cache entries for direct requests too.
  for (const name of requested) {
    const d = await get(env.base, `/${m.parts[name]!.request!}`);
    expect(d.header('x-cache'), name).toBe('HIT');
  }
  expect(env.count()).toBe(0);
}

describe('built-in pages', () => {
  it('home: head, latest blocks, transactions, pending, counts, summaries', async () => {
    await checkPage('/pages/home?page_size=5', [
      'head',
      'blocks',
      'txs',
      'pending',
      'today',
      'history',
      'summary',
      'nax',
    ]);
    const m = metaOf(await get(env.base, '/pages/home?page_size=5'));
    // The first page of the run found nothing cached: every part was one upstream request.
    expect(Object.values(m.parts).every((p) => p.cache === 'MISS')).toBe(true);
    expect(m.parts['blocks']!.request).toBe('block/list?page=1&page_size=5');
    // The head keeps the upstream's own number token.
    const page = await get(env.base, '/pages/home?page_size=5');
    expect(partBytes(page, 'head')).toContain(`"height":${head}.0`);
  });

  it('home: page_size defaults to 10', async () => {
    const m = metaOf(await get(env.base, '/pages/home'));
    expect(m.parts['txs']!.request).toBe('tx/list?page=1&page_size=10');
  });

  it('block by height and by hash', async () => {
    await checkPage(`/pages/block?h=${head - 40}`, ['block', 'txs', 'head']);
    await checkPage(`/pages/block?h=${blockHash(1, head - 41)}`, ['block', 'txs', 'head']);
  });

  it('tx: a plain transaction (no token) and an NRC20 transfer (its token)', async () => {
    let h = head - 30;
    while (h % 8 >= 4) h--;
    await checkPage(`/pages/tx?hash=${txHash(1, h, 0)}`, ['tx', 'block', 'head']);
    h = head - 30;
    while (h % 8 < 4) h--;
    const hash = txHash(1, h, 0);
    await checkPage(`/pages/tx?hash=${hash}`, ['tx', 'block', 'head', 'tokens', 'token']);
    const page = await get(env.base, `/pages/tx?hash=${hash}`);
    const data = (page.json as { data: Record<string, unknown> }).data;
    const token = TOKENS[Math.floor(h / 8) % 6]!;
    expect(data['token']).toMatchObject({ token_name: token.name, contract: token.contract });
    expect(data).not.toHaveProperty('tokens');
  });

  it('address: info, transactions, NRC20 transfers, NAX profits', async () => {
    await checkPage(`/pages/address?address=${normalAddress(1, 3)}&page_size=3`, ['info', 'txs', 'nrc20', 'profits']);
  });

  it('token by name and by contract', async () => {
    await checkPage('/pages/token?token=NAT&page_size=2', ['detail', 'txs', 'holders']);
    await checkPage(`/pages/token?contract=${TOKENS[1]!.contract}&page_size=2`, ['detail', 'txs', 'holders']);
  });

  it('a part fetched directly first is a hit inside the page', async () => {
    const addr = normalAddress(1, 5);
    await get(env.base, `/address/info?address=${addr}`);
    env.mark();
    const m = metaOf(await get(env.base, `/pages/address?address=${addr}`));
    expect(m.parts['info']!.cache).toBe('HIT');
    expect(env.count('address/info')).toBe(0);
    expect(env.count()).toBe(3);
  });
});
