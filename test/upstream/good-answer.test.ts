/**
 * One definition of a good answer: `code` 0, `msg` a string, `data` of the
 * endpoint's record schema, no duplicated envelope or link keys, valid UTF-8.
 * Anything else is an upstream error: retried on another upstream, never
 * cached, relayed as a 502 envelope.
 */
import { describe, expect, it } from 'vitest';
import { sendJson } from '../helpers/fake-upstream.js';
import { get, maxAge, startReplica } from '../helpers/replica.js';
import { blockDetailAt, fixture, perTest, startChainFake, SLOWER_MS } from '../helpers/chain-fake.js';

const HEAD = 4_842_503;
const BLOCK = 4_820_298; // the recorded final block
const DETAIL = `/block/detail?h=${BLOCK}`;

const t = perTest();

const good = blockDetailAt(BLOCK, true);
const data = good.slice(good.indexOf('"data":') + 7, -1);

const BAD: Array<[string, string | Buffer]> = [
  ['code 0 without msg', `{"code":0,"data":${data}}`],
  ['data null', '{"code":0,"msg":"success","data":null}'],
  ['data {}', '{"code":0,"msg":"success","data":{}}'],
  ['no data member', '{"code":0,"msg":"success"}'],
  ['a missing field', good.replace(/"block_hash":"[0-9a-f]+",?/, '')],
  ['a field of the wrong type', good.replace(/"height":\d+/, '"height":"4820298"')],
  ['msg not a string', good.replace('"msg":"success"', '"msg":null')],
  ['no envelope at all', data],
  [
    'invalid UTF-8',
    Buffer.concat([Buffer.from(good.slice(0, 40)), Buffer.from([0xff, 0xfe]), Buffer.from(good.slice(40))]),
  ],
  [
    'duplicate code (first one an error)',
    `{"code":404,"msg":"not found","data":null,${good.slice(1)}`.replace(/,"data":null,/, ','),
  ],
  ['duplicate data', good.replace('"data":{', '"data":null,"data":{')],
];

describe('a bad answer from the only upstream', () => {
  it.each(BAD)('%s → 502 envelope, never cached', async (_name, body) => {
    const fake = await startChainFake(HEAD);
    t.fakes.push(fake);
    fake.on('block/detail', (_req, res) => sendJson(res, 200, body));
    t.proxy = await startReplica([fake.url], { upstream: { maxAttempts: 1 } });
    const r = await get(t.proxy.url, DETAIL);
    expect(r.status).toBe(502);
    expect(r.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(r.text)).toMatchObject({ code: 5021, data: null });
    const again = await get(t.proxy.url, DETAIL);
    expect(again.status).toBe(502);
    expect(fake.count('/block/detail')).toBe(2); // nothing was stored
  });
});

describe('a bad answer with a healthy second upstream', () => {
  it.each(BAD)('%s → retried on the other upstream, 200 with a long TTL', async (_name, body) => {
    const [bad, ok] = await Promise.all([startChainFake(HEAD), startChainFake(HEAD)]);
    t.fakes.push(bad, ok);
    bad.on('block/detail', (_req, res) => sendJson(res, 200, body));
    ok.on('block/detail', (_req, res) => sendJson(res, 200, good));
    ok.delay(SLOWER_MS); // the bad upstream looks faster: it gets the first attempt
    t.proxy = await startReplica([bad.url, ok.url], { upstream: { hedgeAfterMs: 0 } });
    const r = await get(t.proxy.url, DETAIL);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toMatchObject({ code: 0, msg: 'success', data: { height: BLOCK, is_finality: true } });
    expect(maxAge(r.headers)).toBeGreaterThan(3600);
    expect(bad.count('/block/detail')).toBe(1);
    expect(ok.count('/block/detail')).toBe(1);
  });

  it('duplicate `next` inside data is rejected, so links and JSON.parse cannot disagree', async () => {
    const [bad, ok] = await Promise.all([startChainFake(HEAD), startChainFake(HEAD)]);
    t.fakes.push(bad, ok);
    const list = fixture('tx/list');
    bad.on('tx/list', (_req, res) =>
      sendJson(res, 200, list.replace('"data":{', '"data":{"next":"http://evil.example/tx/list?page=9",')),
    );
    ok.delay(SLOWER_MS);
    t.proxy = await startReplica([bad.url, ok.url], { upstream: { hedgeAfterMs: 0 } });
    const r = await get(t.proxy.url, '/tx/list?page=1&page_size=2');
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('evil.example');
    expect(JSON.parse(r.text)).toMatchObject({ data: { next: 'https://api.example.test/tx/list?page=2&page_size=2' } });
    expect(bad.count('/tx/list')).toBe(1);
    expect(ok.count('/tx/list')).toBe(1);
  });
});
