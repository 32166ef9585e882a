/**
 * Cache policies that follow the data, driven by an injected fake clock:
 * final vs non-final block/detail, pending vs confirmed tx/detail (and the
 * promotion of a confirmed tx once its block is final), block/max about 1 s,
 * tx/list?block_height of a final block long-lived and untouched by head
 * moves, and upstream errors never stored as successes (500 never cached; a
 * not-found envelope kept at most about 1 s).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  envelope,
  fixture,
  get,
  queryOf,
  routes,
  sendJson,
  startEnv,
  type Env,
  settableClock,
} from '../helpers/proxy-kit.js';
import { untilHead, within } from '../helpers/until.js';

const HOUR = 3_600_000;
const TX_BLOCK = 4841297; // block of the tx/detail fixture
const FINAL_BLOCK = 4820298; // block/detail fixture, is_finality true
const HEAD = 4842503;

function blockDetail(h: number, final: boolean): string {
  return fixture('block/detail')
    .body.replace('"height":4820298', `"height":${h}`)
    .replace('"is_finality":true', `"is_finality":${final}`);
}

function txDetail(hash: string, status: 0 | 1 | 2): string {
  let b = fixture('tx/detail').body.replace(/"tx_hash":"[0-9a-f]{64}"/, `"tx_hash":"${hash}"`);
  if (status === 2) {
    b = b
      .replace('"status":1', '"status":2')
      .replace(`"block_height":${TX_BLOCK}`, '"block_height":null')
      .replace('"block_timestamp":1595146350', '"block_timestamp":null')
      .replace('"gas_used":63615', '"gas_used":null');
  } else {
    b = b.replace('"status":1', `"status":${status}`);
  }
  return b;
}

function txList(blockHeight: number): string {
  return fixture('tx/list')
    .body.replace(/"block_height":\d+/g, `"block_height":${blockHeight}`)
    .replace('?page=2&page_size=2', `?block_height=${blockHeight}&page=2&page_size=2`);
}

const hashOf = (n: number): string => n.toString(16).padStart(64, '0');

/** A small controllable chain behind the fake upstream. */
function chain() {
  const state = {
    head: HEAD,
    final: new Set<number>([FINAL_BLOCK]),
    pending: new Set<string>(),
    txStatus500: false,
  };
  const handler = routes({
    'block/max': (_req, res) =>
      sendJson(
        res,
        200,
        `{"code":0,"msg":"success","data":{"height":${state.head}.0,"server_timestamp":1595164447597}}`,
      ),
    'block/detail': (req, res) => {
      const h = Number(queryOf(req).get('h'));
      sendJson(res, 200, blockDetail(h, state.final.has(h)));
    },
    'tx/detail': (req, res) => {
      const hash = queryOf(req).get('hash') ?? '';
      if (state.txStatus500) return sendJson(res, 500, '{"code":500,"msg":"internal error","data":null}');
      if (hash.startsWith('dead')) return sendJson(res, 404, '{"code":404,"msg":"transaction not found","data":null}');
      if (hash.startsWith('beef')) return sendJson(res, 200, '{"code":1,"msg":"transaction not found","data":null}');
      sendJson(res, 200, txDetail(hash, state.pending.has(hash) ? 2 : 1));
    },
    'tx/list': (req, res) => {
      const bh = queryOf(req).get('block_height');
      sendJson(res, 200, bh === null ? fixture('tx/list').body : txList(Number(bh)));
    },
  });
  return { state, handler };
}

describe('policies with a fake clock', () => {
  let env: Env | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  async function setup(patch = {}) {
    const clock = settableClock();
    const c = chain();
    env = await startEnv({
      handler: c.handler,
      clock: clock.now,
      patch: { upstream: { maxAttempts: 1, hedgeAfterMs: 0 }, ...patch },
    });
    return { clock, state: c.state, env };
  }

  const xc = async (e: Env, url: string) => {
    const g = await get(e.base, url);
    return { g, cache: g.header('x-cache'), status: g.status };
  };

  it('block/detail of a final block (is_finality true) is still a HIT after an hour', async () => {
    const { clock, env } = await setup();
    const url = `/block/detail?h=${FINAL_BLOCK}`;
    const first = await xc(env, url);
    expect(first.cache).toBe('MISS');
    expect(first.g.text).toContain('"is_finality":true');
    const maxAge = Number(/max-age=(\d+)/.exec(first.g.header('cache-control') ?? '')?.[1]);
    expect(maxAge).toBeGreaterThanOrEqual(HOUR / 1000);
    clock.advance(HOUR);
    const later = await xc(env, url);
    expect(later.cache).toBe('HIT');
    expect(env.count('block/detail')).toBe(1);
    expect(Number(later.g.header('age'))).toBe(3600);
  });

  it('block/detail of a non-final block expires within seconds', async () => {
    const { clock, env } = await setup();
    const url = '/block/detail?h=4842400';
    expect((await xc(env, url)).cache).toBe('MISS');
    clock.advance(1000);
    expect((await xc(env, url)).cache).toBe('HIT');
    const maxAge = Number(/max-age=(\d+)/.exec((await get(env.base, url)).header('cache-control') ?? '')?.[1]);
    expect(maxAge).toBeLessThanOrEqual(10);
    clock.advance(15_000);
    expect((await xc(env, url)).cache).toBe('MISS');
    expect(env.count('block/detail')).toBe(2);
  });

  it('a block that became final is not served as non-final for long', async () => {
    const { clock, state, env } = await setup();
    const url = '/block/detail?h=4842400';
    expect((await xc(env, url)).g.text).toContain('"is_finality":false');
    // The block becomes final; the proxy learns it from a higher final block.
    state.final.add(4842400);
    state.final.add(4842450);
    expect((await xc(env, '/block/detail?h=4842450')).g.text).toContain('"is_finality":true');
    clock.advance(15_000);
    const r = await xc(env, url);
    // Either fetched again or refreshed in the background: is_finality true within seconds.
    if (r.cache === 'STALE') {
      await env.up.arrived(3, 'block/detail', 'the background refresh');
      await within(env.proxy.resolver.idle(), 'the refresh settled');
      expect(env.count('block/detail')).toBe(3);
    }
    const now = await xc(env, url);
    expect(now.g.text).toContain('"is_finality":true');
  });

  it('tx/detail of a pending transaction (status 2) lives about 1 s', async () => {
    const { clock, state, env } = await setup();
    const hash = hashOf(0xa1);
    state.pending.add(hash);
    const url = `/tx/detail?hash=${hash}`;
    expect((await xc(env, url)).cache).toBe('MISS');
    clock.advance(500);
    expect((await xc(env, url)).cache).toBe('HIT');
    clock.advance(2_500);
    expect((await xc(env, url)).cache).toBe('MISS');
    expect(env.count('tx/detail')).toBe(2);
  });

  it('tx/detail confirmed in a final block is still a HIT after an hour', async () => {
    const { clock, state, env } = await setup();
    state.final.add(TX_BLOCK + 3);
    // The proxy learns the final height from data.
    expect((await xc(env, `/block/detail?h=${TX_BLOCK + 3}`)).g.text).toContain('"is_finality":true');
    const url = `/tx/detail?hash=${hashOf(0xb2)}`;
    expect((await xc(env, url)).cache).toBe('MISS');
    clock.advance(HOUR);
    expect((await xc(env, url)).cache).toBe('HIT');
    expect(env.count('tx/detail')).toBe(1);
  });

  it('tx/detail confirmed in a non-final block: seconds, then long-lived once the block is final', async () => {
    const { clock, state, env } = await setup();
    const url = `/tx/detail?hash=${hashOf(0xc3)}`;
    expect((await xc(env, url)).cache).toBe('MISS');
    clock.advance(2_000);
    expect((await xc(env, url)).cache).toBe('HIT');
    clock.advance(30_000);
    expect((await xc(env, url)).cache).toBe('MISS');
    expect(env.count('tx/detail')).toBe(2);
    // Its block becomes final: after the ordinary TTL the entry is promoted, no upstream request.
    state.final.add(TX_BLOCK + 1);
    await xc(env, `/block/detail?h=${TX_BLOCK + 1}`);
    clock.advance(HOUR);
    expect((await xc(env, url)).cache).toBe('HIT');
    expect(env.count('tx/detail')).toBe(2);
  });

  it('block/max lives about 1 s', async () => {
    const { clock, env } = await setup();
    const before = env.count('block/max');
    expect((await xc(env, '/block/max')).cache).toBe('MISS');
    clock.advance(500);
    expect((await xc(env, '/block/max')).cache).toBe('HIT');
    clock.advance(1_000);
    expect((await xc(env, '/block/max')).cache).not.toBe('HIT');
    await within(env.proxy.resolver.idle(), 'no flight under way');
    clock.advance(5_000);
    expect((await xc(env, '/block/max')).cache).toBe('MISS');
    expect(env.count('block/max')).toBe(before + 3);
  });

  it(
    'tx/list?block_height of a final block is long-lived ' + 'and survives head moves; plain tx/list does not',
    async () => {
      const { clock, state, env } = await setup();
      await xc(env, `/block/detail?h=${FINAL_BLOCK}`); // final height known
      const finalUrl = `/tx/list?block_height=${FINAL_BLOCK - 10}`;
      const headUrl = '/tx/list';
      const a = await xc(env, finalUrl);
      expect(a.cache).toBe('MISS');
      expect(a.g.text).toContain(
        `"next":"https://api.example.test/tx/list?block_height=${FINAL_BLOCK - 10}&page=2&page_size=2"`,
      );
      expect((await xc(env, headUrl)).cache).toBe('MISS');
      expect(env.count('tx/list')).toBe(2);

      // The head moves (learned through block/max); the head-dependent list is no longer fresh.
      state.head = HEAD + 5;
      clock.advance(2_500);
      await xc(env, '/block/max');
      await untilHead(env.proxy.tracker, (h) => h === HEAD + 5, 'head to move', 2000);
      expect((await xc(env, headUrl)).cache).not.toBe('HIT');
      expect((await xc(env, finalUrl)).cache).toBe('HIT');

      clock.advance(HOUR);
      expect((await xc(env, finalUrl)).cache).toBe('HIT');
      expect(env.up.requests.filter((r) => r.url.startsWith('/tx/list?block_height=')).length).toBe(1);
    },
  );

  it('tx/list?block_height of a non-final block is short-lived', async () => {
    const { clock, env } = await setup();
    await xc(env, `/block/detail?h=${FINAL_BLOCK}`);
    const url = '/tx/list?block_height=4842500';
    expect((await xc(env, url)).cache).toBe('MISS');
    clock.advance(HOUR);
    expect((await xc(env, url)).cache).toBe('MISS');
  });

  it('an upstream 500 is never cached', async () => {
    const { state, env } = await setup();
    state.txStatus500 = true;
    const url = `/tx/detail?hash=${hashOf(0xd4)}`;
    const a = await xc(env, url);
    expect(a.status).toBe(502);
    expect(a.g.header('cache-control')).toBe('no-store');
    const e = envelope(a.g);
    expect(e.code).toBeGreaterThanOrEqual(5021);
    expect(e.code).toBeLessThanOrEqual(5024);
    expect(e.data).toBeNull();
    const b = await xc(env, url);
    expect(b.status).toBe(502);
    expect(env.count('tx/detail')).toBe(2);
    // Once the upstream recovers, the answer is a fresh success, not a remembered error.
    state.txStatus500 = false;
    const c = await xc(env, url);
    expect(c.status).toBe(200);
    expect(c.cache).toBe('MISS');
  });

  it.each([
    ['a 404 envelope', 'dead', 404],
    ['a 200 envelope with a non-zero code', 'beef', null],
  ] as const)(
    '%s is kept at most about 1 s as a negative entry, never as a success',
    async (_label, prefix, status) => {
      const { clock, env } = await setup();
      const url = `/tx/detail?hash=${prefix}${hashOf(1).slice(4)}`;
      const a = await xc(env, url);
      if (status !== null) expect(a.status).toBe(status);
      const e = envelope(a.g);
      expect(e.code).not.toBe(0);
      expect(e.data).toBeNull();
      const maxAge = /max-age=(\d+)/.exec(a.g.header('cache-control') ?? '');
      if (maxAge !== null) expect(Number(maxAge[1])).toBeLessThanOrEqual(1);
      const b = await xc(env, url);
      expect(b.status).toBe(a.status);
      expect(b.g.text).toBe(a.g.text);
      expect(env.count('tx/detail')).toBe(1); // negative entry
      clock.advance(1_500);
      const c = await xc(env, url);
      expect(c.cache).not.toBe('STALE');
      expect(env.count('tx/detail')).toBe(2);
      expect(c.status).toBe(a.status);
    },
  );
});
