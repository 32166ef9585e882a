import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaForEndpoint, validateRecord } from '../../src/schema/index.js';
import { contractAddress, normalAddress, type SimulatorHandle } from '../../src/sim/index.js';
import { FIXTURES, get, getJson, sim, type Paged } from './util.js';

let s: SimulatorHandle;
beforeAll(async () => {
  s = await sim({ advertisedUrl: 'http://data.nebulas.io' });
});
afterAll(() => s.close());

const hot = normalAddress(1, 3); // hot sender, tens of thousands of txs
const mid = normalAddress(1, 17); // NRC20 sender
const cold = normalAddress(1, 300_000); // no txs

async function validated(pathAndQuery: string): Promise<string> {
  const g = await get(s.url, pathAndQuery);
  expect(g.status, pathAndQuery + ' ' + g.text).toBe(200);
  expect(g.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(g.text) as { code: number; msg: string };
  expect(body.code).toBe(0);
  expect(body.msg).toBe('success');
  const schema = schemaForEndpoint(pathAndQuery)!;
  expect(validateRecord(schema, body), pathAndQuery).toEqual([]);
  return g.text;
}

describe('every endpoint validates against the record schemas', () => {
  const queries = [
    '/tx/nrc20?address=' + mid,
    '/tx/nrc20?address=' + mid + '&page=3&page_size=7',
    '/tx/nrc20?address=' + cold,
    '/tx/list',
    '/tx/list?page=2&page_size=50',
    '/tx/list?block_height=4841000',
    '/tx/list?block_height=99999999',
    '/tx/list/pending',
    '/tx/listByAddress?address=' + hot,
    '/tx/listByAddress?address=' + mid + '&is_nrc20=true',
    '/tx/listByAddress?address=' + cold,
    '/tx/count/history',
    '/tx/count/history?days=2',
    '/tx/count/today',
    '/block/list',
    '/block/list?page=100&page_size=100',
    '/block/detail?h=4820298',
    '/block/max',
    '/contracts',
    '/token/list',
    '/token/detail?token=NAX',
    '/token/detail?contract=n1pxpisjJMsnVLrqHBnS52o8wsuMUsycfDV',
    '/token/tx/list?token=NAX',
    '/token/tx/list?contract=n1zUNqeBPvsyrw5zxp9mKcDdLTjuaEL7s39&page=2',
    '/token/holders?token=ATP',
    '/holders',
    '/holders?page=400&page_size=2',
    '/nax/history',
    '/nax/summary',
    '/nax/profits?address=' + mid,
    '/address/info?address=' + hot,
    '/address/info?address=' + contractAddress(1, 5),
    '/address/info?address=n1etmdwczuAUCnMMvpGasfi8kwUbb2ddvRJ',
    '/address/info?address=n1d4wXxTVmK4rzyiN1vxhMuzxT441bxr8Fg',
    '/address/count/history',
    '/chain/summary',
  ];
  for (const q of queries) it(q, async () => void (await validated(q)));

  it('tx/detail of confirmed, failed-or-ok and pending transactions', async () => {
    const list = await getJson<Paged<{ tx_hash: string }>>(s.url, '/tx/list?page_size=100');
    for (const tx of list.data.list.slice(0, 10)) await validated('/tx/detail?hash=' + tx.tx_hash);
    const pending = await getJson<Paged<{ tx_hash: string }>>(s.url, '/tx/list/pending');
    expect(pending.data.count).toBeGreaterThan(0);
    const d = JSON.parse(await validated('/tx/detail?hash=' + pending.data.list[0]!.tx_hash)) as {
      data: Record<string, unknown>;
    };
    expect(d.data.status).toBe(2);
    expect(d.data.block_height).toBeNull();
  });

  it('pending transactions have null block fields and status 2', async () => {
    const p = await getJson<Paged>(s.url, '/tx/list/pending?page_size=100');
    for (const t of p.data.list) {
      expect(t).toMatchObject({
        status: 2,
        block_timestamp: null,
        block_date: null,
        gas_used: null,
        block_height: null,
        contract_address: null,
      });
    }
  });
});

describe('recorded quirks', () => {
  it('block/max height carries a .0 fraction', async () => {
    const g = await get(s.url, '/block/max');
    expect(g.text).toMatch(/^\{"code":0,"msg":"success","data":\{"height":4842000\.0,"server_timestamp":\d+\}\}$/);
  });

  it('holders rank is written as 1.0', async () => {
    const g = await get(s.url, '/holders?page_size=2');
    expect(g.text).toContain('"rank":1.0}');
    expect(g.text).toContain('"rank":2.0}');
    const d = JSON.parse(g.text) as { data: Paged };
    expect(d.data.total_page).toBe(400); // page cap, like the real service
  });

  it('token/list equals the recorded list byte for byte', async () => {
    const g = await get(s.url, '/token/list');
    expect(g.text).toBe(FIXTURES.find((f) => f.path === 'token/list')!.body);
    const detail = await get(s.url, '/token/detail?token=NAX');
    expect(detail.text).toBe(FIXTURES.find((f) => f.path === 'token/detail')!.body);
  });

  it('token paged links put page, page_size first, then token', async () => {
    const t = await getJson<Paged>(s.url, '/token/tx/list?token=NAX&page=1&page_size=2');
    expect(t.data.next).toBe('http://data.nebulas.io/token/tx/list?page=2&page_size=2&token=NAX');
    expect(t.data).toHaveProperty('token.token_name', 'NAX');
    const h = await getJson<Paged>(s.url, '/token/holders?token=NAX&page=1&page_size=2');
    expect(h.data.next).toBe('http://data.nebulas.io/token/holders?page=2&page_size=2&token=NAX');
    const a = await getJson<Paged>(s.url, `/tx/listByAddress?address=${hot}&page=1&page_size=2`);
    expect(a.data.next).toBe(`http://data.nebulas.io/tx/listByAddress?address=${hot}&page=2&page_size=2`);
  });

  it('tx/nrc20 has its own result object, ms timestamps and caps txnCnt at maxDisplayCnt', async () => {
    const r = await getJson<{
      txnList: Record<string, number>[];
      txnCnt: number;
      totalPage: number;
      maxDisplayCnt: number;
    }>(s.url, `/tx/nrc20?address=${mid}&page=1&page_size=2`);
    expect(r.data.maxDisplayCnt).toBe(500);
    expect(r.data.txnCnt).toBeLessThanOrEqual(500);
    expect(r.data.totalPage).toBe(Math.ceil(r.data.txnCnt / 2));
    const it0 = r.data.txnList[0]!;
    expect(it0.timestamp! % 1000).toBe(0);
    expect(it0.timestamp).toBeGreaterThan(1e12);
    expect(it0.timeDiff).toBe(it0.currentTimestamp! - it0.timestamp!);
  });

  it('address/info: contract {} for normal, contract record for contracts', async () => {
    const n = await getJson<{ contract: object; type: number }>(s.url, '/address/info?address=' + hot);
    expect(n.data.contract).toEqual({});
    expect(n.data.type).toBe(87);
    const c = await getJson<{ contract: { address: string }; type: number }>(
      s.url,
      '/address/info?address=' + contractAddress(1, 5),
    );
    expect(c.data.type).toBe(88);
    expect(c.data.contract.address).toBe(contractAddress(1, 5));
  });

  it('address/count/history repeats a date; tx/count/history defaults to 15 days', async () => {
    const a = await getJson<{ date: string }[]>(s.url, '/address/count/history');
    expect(a.data).toHaveLength(30);
    expect(a.data[2]!.date).toBe(a.data[3]!.date);
    const t = await getJson<{ date: string }[]>(s.url, '/tx/count/history');
    expect(t.data).toHaveLength(15);
    expect(t.data[0]!.date > t.data[1]!.date).toBe(true);
  });

  it('NAX amounts carry a decimal fraction; stages of 6000 blocks; summary lists 15 stages', async () => {
    const sum = await getJson<{
      end_height: number;
      list: { stage: number; start: number; end: number; total_vote_nax: string }[];
    }>(s.url, '/nax/summary');
    expect(sum.data.end_height).toBe(4848000);
    expect(sum.data.list).toHaveLength(15);
    expect(sum.data.list[0]).toMatchObject({ stage: 298, start: 4836000, end: 4842000 });
    expect(sum.data.list[0]!.total_vote_nax).toMatch(/^\d+\.\d{4}$/);
    const hist = await getJson<Paged>(s.url, '/nax/history');
    expect(hist.data.count).toBe(299);
  });

  it('block/detail node.info is free text with nulls; block by hash equals block by height', async () => {
    const d = await getJson<{ block_hash: string; node: { info: Record<string, string | null> } }>(
      s.url,
      '/block/detail?h=4820298',
    );
    expect(Object.values(d.data.node.info)).toContain(null);
    const byHash = await get(s.url, '/block/detail?h=' + d.data.block_hash);
    expect(JSON.parse(byHash.text)).toEqual(d);
  });

  it('chain/summary is consistent with the lists', async () => {
    const cs = await getJson<{ block_count: number; tx_count: number; contract_count: number }>(
      s.url,
      '/chain/summary',
    );
    const tl = await getJson<Paged>(s.url, '/tx/list');
    const bl = await getJson<Paged>(s.url, '/block/list');
    const cl = await getJson<Paged>(s.url, '/contracts');
    expect(cs.data.tx_count).toBe(tl.data.count);
    expect(cs.data.block_count).toBe(bl.data.count);
    expect(cs.data.contract_count).toBe(cl.data.count);
    expect(tl.data.count).toBeGreaterThan(10_000_000);
  });
});
