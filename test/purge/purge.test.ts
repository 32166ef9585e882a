/**
 * POST /purge on one replica (real sockets, the built-in simulator upstream):
 * by exact key, by tag (address, contract, token, finality) and everything,
 * hard and soft, the count in the answer, bad requests, the operator gate,
 * the metrics and the status line.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { waitFor } from '../helpers/fake-upstream.js';
import { fakeClock } from '../helpers/clock.js';
import { counter, dataOf, get, startReplica, unstamped, type Replica } from '../helpers/replica.js';
import { keyQuery, purge, purged, purgeStatus } from './kit.js';

const BLOCK = 4_841_000;
let sim: SimulatorHandle;
let r: Replica;
const clock = fakeClock(Date.now());
/** Upstream requests for `endpoint` (no leading slash) so far. */
const upstream = (endpoint: string): number => sim.stats()[endpoint] ?? 0;
/** X-Cache of a GET, after a millisecond (entries made after a purge are newer than it). */
const cacheOf = async (path: string): Promise<string | undefined> => {
  clock.advance(1);
  return (await get(r.url, path)).cache;
};
/** Purges a millisecond after what it purges, and before what follows. */
const purgedAfter = async (query: string) => {
  clock.advance(1);
  const d = await purged(r.url, query);
  clock.advance(1);
  return d;
};

let from = '';
let to = '';
let txInBlock = '';

beforeAll(async () => {
  sim = await startSimulator({ port: 0, blockIntervalMs: 0, seed: 7 });
  r = await startReplica([sim.url], {}, clock.now);
  const list = (
    dataOf((await get(sim.url, `/tx/list?block_height=${BLOCK}&page_size=1`)).text)['list'] as Array<
      Record<string, string>
    >
  )[0]!;
  [from, to, txInBlock] = [list['address_from']!, list['address_to']!, list['tx_hash']!];
});
afterAll(async () => {
  await r?.close();
  await sim?.close();
});

describe('purge by exact key', () => {
  it('drops the one entry however the request is spelt; the next request fetches it again', async () => {
    const path = `/block/detail?h=${BLOCK + 1}`;
    expect(await cacheOf(path)).toBe('MISS');
    expect(await cacheOf(path)).toBe('HIT');
    const before = upstream('block/detail');
    // Another spelling of the same request: a leading zero, an ignored parameter, a full URL.
    const d = await purgedAfter(keyQuery(`https://api.example.test/block/detail?h=0${BLOCK + 1}&_=123`));
    expect(d).toMatchObject({
      kind: 'key',
      target: `block/detail?h=${BLOCK + 1}`,
      mode: 'hard',
      purged: 1,
      memory: 1,
      redis: 0,
      reach: 'process',
      fleet: null,
    });
    expect(await cacheOf(path)).toBe('MISS');
    expect(upstream('block/detail')).toBe(before + 1);
    expect(await cacheOf(path)).toBe('HIT');
    // Nothing held under another key: nothing purged.
    expect(await purgedAfter(keyQuery(`block/detail?h=${BLOCK + 2}`))).toMatchObject({ purged: 0, memory: 0 });
  });

  it('hard: never served again, not even stale when the refetch fails', async () => {
    const path = `/block/detail?h=${BLOCK + 3}`;
    await cacheOf(path);
    expect(await cacheOf(path)).toBe('HIT');
    await purgedAfter(keyQuery(path));
    sim.setFaults({ errorRate: 1 });
    try {
      const g = await get(r.url, path);
      expect(g.status).toBe(502);
      expect(g.cache).not.toBe('STALE');
    } finally {
      sim.setFaults({});
    }
  });

  it('soft: served stale while fetched again, then fresh', async () => {
    const path = `/block/detail?h=${BLOCK + 4}`;
    const first = await get(r.url, path);
    expect(await cacheOf(path)).toBe('HIT');
    const before = upstream('block/detail');
    expect(await purgedAfter(`${keyQuery(path)}&soft=true`)).toMatchObject({ mode: 'soft', purged: 1, memory: 1 });
    const stale = await get(r.url, path);
    expect(stale.cache).toBe('STALE');
    expect(unstamped(stale.text)).toBe(unstamped(first.text));
    await waitFor(() => upstream('block/detail') === before + 1, 5000, 'the background refetch');
    await waitFor(async () => (await get(r.url, path)).headers['age'] === '0', 5000, 'the refetched entry served');
    expect(await cacheOf(path)).toBe('HIT');
    expect(upstream('block/detail')).toBe(before + 1);
  });

  it('soft: still served stale when the refetch fails', async () => {
    const path = `/block/detail?h=${BLOCK + 5}`;
    await cacheOf(path);
    await purgedAfter(`${keyQuery(path)}&soft=1`);
    sim.setFaults({ errorRate: 1 });
    try {
      const g = await get(r.url, path);
      expect(g.status).toBe(200);
      expect(g.cache).toBe('STALE');
    } finally {
      sim.setFaults({});
    }
  });
});

describe('purge by tag', () => {
  it('address (and contract, the same tag): every entry naming it, and only those', async () => {
    const mine = [
      `/address/info?address=${from}`,
      `/tx/listByAddress?address=${from}`,
      `/tx/nrc20?address=${from}&page_size=5`,
    ];
    const other = `/address/info?address=${to}`;
    for (const p of [...mine, other]) await cacheOf(p);
    const d = await purgedAfter(`tag=address:${from}`);
    expect(d).toMatchObject({ kind: 'tag', target: `address:${from}`, mode: 'hard', purged: 3, memory: 3 });
    for (const p of mine) expect(await cacheOf(p), p).toBe('MISS');
    expect(await cacheOf(other)).toBe('HIT');
    expect(await purgedAfter(`tag=contract:${to}`)).toMatchObject({ target: `address:${to}`, purged: 1 });
    expect(await cacheOf(other)).toBe('MISS');
  });

  it('token: its detail, holders and transfers', async () => {
    const mine = ['/token/detail?token=NAX', '/token/holders?token=NAX', '/token/tx/list?token=NAX'];
    const other = '/token/detail?token=ATP';
    for (const p of [...mine, other]) await cacheOf(p);
    expect(await purgedAfter('tag=token:NAX')).toMatchObject({ target: 'token:NAX', purged: 3 });
    for (const p of mine) expect(await cacheOf(p), p).toBe('MISS');
    expect(await cacheOf(other)).toBe('HIT');
  });

  it('height: the block, its transaction list and a transaction in it (its height read from the answer)', async () => {
    const mine = [`/block/detail?h=${BLOCK}`, `/tx/list?block_height=${BLOCK}`, `/tx/detail?hash=${txInBlock}`];
    const other = `/block/detail?h=${BLOCK - 1}`;
    for (const p of [...mine, other]) await cacheOf(p);
    // `height:` is another spelling of the header's `finality:`.
    expect(await purgedAfter(`tag=height:${BLOCK}`)).toMatchObject({ target: `finality:${BLOCK}`, purged: 3 });
    for (const p of mine) expect(await cacheOf(p), p).toBe('MISS');
    expect(await cacheOf(other)).toBe('HIT');
    expect(await purgedAfter(`tag=finality:${BLOCK}`)).toMatchObject({ target: `finality:${BLOCK}`, purged: 3 });
  });
});

describe('purge everything', () => {
  it('counts every entry held, drops them all, and composed pages are composed again', async () => {
    const paths = ['/token/list', `/block/detail?h=${BLOCK - 2}`, `/address/info?address=${to}`];
    for (const p of paths) await cacheOf(p);
    const page = `/pages/block?h=${BLOCK - 3}`;
    await cacheOf(page);
    expect(await cacheOf(page)).toBe('HIT');
    const held = r.memory.entries;
    const d = await purgedAfter('all=true');
    // The page itself is not counted: it is made of entries that are.
    expect(d).toMatchObject({ kind: 'all', target: '*', mode: 'hard' });
    expect(d.purged).toBeGreaterThanOrEqual(paths.length + 2);
    expect(d.purged).toBeLessThan(held);
    expect(r.memory.entries).toBe(held - d.purged);
    for (const p of paths) expect(await cacheOf(p), p).toBe('MISS');
    expect(await cacheOf(page)).not.toBe('HIT');
    expect(await cacheOf(page)).toBe('HIT');
  });
});

describe('bad purge requests', () => {
  it.each([
    ['', 4002, 'missing parameter key, tag or all'],
    ['tag=address:nope', 4001, 'invalid parameter tag'],
    ['tag=wallet:n1XAAaHtBiHjSd6kVqGBDFsvUAYh86qmcPd', 4001, 'invalid parameter tag'],
    ['tag=height:-1', 4001, 'invalid parameter tag'],
    [keyQuery('/no/such?x=1'), 4001, 'invalid parameter key'],
    [keyQuery('/tx/detail?hash=zz'), 4001, 'invalid parameter key'],
    ['key=tx/list?page=1&page_size=20', 4001, 'invalid parameter page_size'],
    ['tag=token:NAX&all=true', 4001, 'invalid parameter all'],
    ['all=true&soft=maybe', 4001, 'invalid parameter soft'],
    ['all=no', 4001, 'invalid parameter all'],
    ['all=true&sfot=true', 4001, 'invalid parameter sfot'],
    ['tag=token:NAX&tag=token:ATP', 4003, 'duplicated parameter tag'],
  ])('%s → 400 naming the parameter, nothing purged', async (query, code, msg) => {
    const path = '/token/detail?token=WITI';
    await cacheOf(path);
    const before = await purgeStatus(r.url);
    const res = await purge(r.url, query);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.body.code).toBe(code);
    expect(res.body.msg.startsWith(msg)).toBe(true);
    expect(res.body.data).toBeNull();
    expect(await purgeStatus(r.url)).toEqual(before);
    expect(await cacheOf(path)).toBe('HIT');
  });

  it('GET is refused with 405 naming POST', async () => {
    const g = await get(r.url, '/purge?all=true');
    expect(g.status).toBe(405);
    expect(g.headers['allow']).toBe('POST, OPTIONS');
  });
});

describe('metrics and status', () => {
  it(
    'counts purges by kind, mode and origin, ' + 'the entries reached and the marks held; /status tells the last one',
    async () => {
      const path = `/address/info?address=${from}`;
      await cacheOf(path);
      const series = { kind: 'tag', mode: 'soft', origin: 'here' };
      const purgesBefore = await counter(r.url, 'chainproxy_purges_total', series);
      const entriesBefore = await counter(r.url, 'chainproxy_purged_entries_total', { kind: 'tag', mode: 'soft' });
      await purgedAfter(`tag=address:${from}&soft=true`);
      expect(await counter(r.url, 'chainproxy_purges_total', series)).toBe(purgesBefore + 1);
      expect(await counter(r.url, 'chainproxy_purged_entries_total', { kind: 'tag', mode: 'soft' })).toBe(
        entriesBefore + 1,
      );
      expect(await counter(r.url, 'chainproxy_purges_total', { origin: 'fleet' })).toBe(0);
      const s = await purgeStatus(r.url);
      expect(await counter(r.url, 'chainproxy_purge_marks')).toBe(s.marks);
      expect(s.marks).toBeGreaterThan(0);
      expect(s.last).toMatchObject({
        kind: 'tag',
        target: `address:${from}`,
        mode: 'soft',
        origin: 'here',
        entries: 1,
      });
      expect(s.here).toBeGreaterThan(0);
      expect(s.fleet).toBe(0);
    },
  );
});

describe('the operator gate', () => {
  it(
    "a browser's request from another origin is refused " + 'like a non-operator (no cross-site request forgery)',
    async () => {
      const path = `/block/detail?h=${BLOCK - 6}`;
      await cacheOf(path);
      const before = await purgeStatus(r.url);
      const refused: Array<Record<string, string>> = [
        { origin: 'https://evil.example' },
        { 'sec-fetch-site': 'cross-site' },
        { origin: 'null' },
      ];
      for (const headers of refused) {
        const res = await purge(r.url, 'all=true', headers);
        expect(res.status, JSON.stringify(headers)).toBe(404);
        expect(res.body).toMatchObject({ code: 4040, msg: 'no such endpoint: /purge' });
      }
      expect(await purgeStatus(r.url)).toEqual(before);
      expect(await cacheOf(path)).toBe('HIT');
      // The page's own origin may.
      const own = await purge(r.url, keyQuery(path), { origin: r.url, 'sec-fetch-site': 'same-origin' });
      expect(own.status).toBe(200);
      expect(await cacheOf(path)).toBe('MISS');
    },
  );

  it('a client outside PURGE_ALLOW gets the unknown-path answer and purges nothing', async () => {
    const gated = await startReplica([sim.url], { purgeAllow: ['10.0.0.0/8'] });
    try {
      const path = `/block/detail?h=${BLOCK - 5}`;
      await get(gated.url, path);
      const unknown = await get(gated.url, '/no-such-thing');
      const res = await purge(gated.url, 'all=true');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ ...(JSON.parse(unknown.text) as object), msg: 'no such endpoint: /purge' });
      expect((await get(gated.url, path)).cache).toBe('HIT');
      // ADMIN_ALLOW's read-only routes are another list.
      expect((await get(gated.url, '/metrics')).status).toBe(200);
    } finally {
      await gated.close();
    }
  });
});

describe('the OpenAPI document', () => {
  it('describes the route, and its answers validate: 200, 400, and /status with its purge line', async () => {
    const doc = JSON.parse((await get(r.url, '/openapi.json')).text) as Record<string, unknown>;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ ...doc, $id: 'urn:chainproxy:purge' });
    const check = (path: string, method: string, status: string, body: unknown): unknown => {
      const at = `paths/${path.replaceAll('/', '~1')}/${method}/responses/${status}`;
      const validate = ajv.getSchema(`urn:chainproxy:purge#/${at}/content/application~1json/schema`);
      if (validate === undefined) throw new Error(`no schema for ${method} ${path} ${status}`);
      return validate(body) ? null : validate.errors;
    };
    const ok = await purge(r.url, `tag=token:WITI&soft=true`);
    expect(check('/purge', 'post', '200', ok.body)).toBeNull();
    expect(check('/purge', 'post', '400', (await purge(r.url, 'tag=nope')).body)).toBeNull();
    expect(check('/status', 'get', '200', JSON.parse((await get(r.url, '/status')).text))).toBeNull();
    // A body that does not match is caught.
    expect(
      check('/purge', 'post', '200', { ...ok.body, data: { ...(ok.body.data as object), mode: 'gentle' } }),
    ).not.toBeNull();
  });
});
