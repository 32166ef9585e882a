import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorEnvelope, validateRecord } from '../../src/schema/index.js';
import { normalAddress, type SimulatorHandle } from '../../src/sim/index.js';
import { get, getJson, sim, type Paged } from './util.js';

let s: SimulatorHandle;
beforeAll(async () => {
  s = await sim();
});
afterAll(() => s.close());

async function expectError(path: string, status: number, msg: string): Promise<void> {
  const g = await get(s.url, path);
  expect(g.status, path).toBe(status);
  const body = JSON.parse(g.text) as unknown;
  expect(validateRecord(ErrorEnvelope, body)).toEqual([]);
  expect(body).toEqual({ code: status, msg, data: null });
}

describe('bad parameters → 400 envelope', () => {
  const cases: [string, string][] = [
    ['/tx/list?page=0', 'invalid parameter: page'],
    ['/tx/list?page=abc', 'invalid parameter: page'],
    ['/tx/list?page=-1', 'invalid parameter: page'],
    ['/tx/list?page_size=0', 'invalid parameter: page_size'],
    ['/tx/list?page_size=1.5', 'invalid parameter: page_size'],
    ['/tx/list?page=1&page=2', 'invalid parameter: page'],
    ['/tx/list?block_height=x', 'invalid parameter: block_height'],
    ['/tx/detail', 'missing parameter: hash'],
    ['/tx/detail?hash=xyz', 'invalid parameter: hash'],
    ['/tx/listByAddress', 'missing parameter: address'],
    ['/tx/listByAddress?address=0xabc', 'invalid parameter: address'],
    ['/tx/listByAddress?address=' + normalAddress(1, 1) + '&is_nrc20=maybe', 'invalid parameter: is_nrc20'],
    ['/tx/nrc20?address=', 'missing parameter: address'],
    ['/tx/count/history?days=0', 'invalid parameter: days'],
    ['/address/count/history?days=x', 'invalid parameter: days'],
    ['/block/detail', 'missing parameter: h'],
    ['/block/detail?h=zz', 'invalid parameter: h'],
    ['/token/detail', 'missing parameter: token'],
    ['/token/tx/list', 'missing parameter: token'],
    ['/token/holders?contract=bad', 'invalid parameter: contract'],
    ['/nax/profits', 'missing parameter: address'],
    ['/address/info?address=n3xyz', 'invalid parameter: address'],
  ];
  for (const [p, msg] of cases) it(p, () => expectError(p, 400, msg));
});

describe('unknown identifiers → 404 envelope', () => {
  const cases = [
    '/tx/detail?hash=' + 'ab'.repeat(32),
    '/tx/detail?hash=eb3c8d848679ad1786d5986da48bcc5d5732141fd6fccde0a9a3bfd78ae1d970',
    '/block/detail?h=99999999',
    '/block/detail?h=0',
    '/block/detail?h=' + 'cd'.repeat(32),
    '/token/detail?token=DOGE',
    '/token/tx/list?token=DOGE',
    '/token/holders?contract=' + normalAddress(1, 1),
    '/no/such/endpoint',
  ];
  for (const p of cases) it(p, () => expectError(p, 404, 'not found'));

  it('unknown well-formed addresses are empty accounts, not errors', async () => {
    const a = 'n1d4wXxTVmK4rzyiN1vxhMuzxT441bxr8Fg';
    const info = await getJson<{ balance: string; nonce: number; type: number }>(s.url, '/address/info?address=' + a);
    expect(info.data).toMatchObject({ balance: '0', nonce: 0, type: 87 });
    const l = await getJson<Paged>(s.url, '/tx/listByAddress?address=' + a);
    expect(l.data).toMatchObject({ count: 0, total_page: 0, list: [], next: null, previous: null });
  });
});
