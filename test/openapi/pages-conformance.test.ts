/**
 * Real answers of every page (built-in and a CONFIG_FILE page, parts present,
 * skipped and failed) and of POST /batch, through the proxy in front of the
 * simulator, validate with ajv against the /openapi.json that proxy serves;
 * so do their error envelopes. A wrong answer is refused, so the check can fail.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import { TOKENS } from '../../src/sim/index.js';
import { blockHash, normalAddress, txHash } from '../../src/sim/ids.js';
import { tempFile } from '../config/helpers.js';
import { get, startPagesEnv, type PagesEnv } from '../pages/kit.js';

const CONFIG_PAGES = [
  'pages:',
  '  blockinfo:',
  '    params: { h: required }',
  '    parts:',
  '      detail: { endpoint: block/detail, query: { h: "{h}" }, required: true }',
  '      tokens: { endpoint: token/list, internal: true }',
  '      nax: { endpoint: nax/history }',
].join('\n');

let env: PagesEnv;
let head: number;
const ajv = new Ajv2020({ strict: false, allErrors: true });

beforeAll(async () => {
  env = await startPagesEnv({ pages: loadConfig({ CONFIG_FILE: tempFile('.yaml', CONFIG_PAGES) }).pages });
  head = env.sim.chain.head();
  const doc = (await get(env.base, '/openapi.json')).json as OpenApiDocument;
  ajv.addSchema({ ...doc, $id: 'urn:chainproxy:openapi' } as object);
}, 30_000);
afterAll(async () => {
  await env?.close();
});

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

function problems(path: string, status: string, body: unknown, method = 'get'): string[] {
  const at = pointer('paths', path, method, 'responses', status, 'content', 'application/json', 'schema');
  const ref = `urn:chainproxy:openapi#/${at}`;
  const validate = ajv.getSchema(ref);
  if (validate === undefined) throw new Error(`no schema at ${ref}`);
  return validate(body)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

type PageBody = { data: Record<string, unknown>; meta: { parts: Record<string, { status: string }> } };

async function conforming(q: string): Promise<PageBody> {
  const res = await get(env.base, q);
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  expect(problems(q.split('?')[0]!, '200', res.json), q).toEqual([]);
  return res.json as PageBody;
}

function nrc20Height(nrc20: boolean): number {
  let h = head - 30;
  while (h % 8 >= 4 === !nrc20) h--;
  return h;
}

describe('page answers conform to /openapi.json', () => {
  // First, while nax/summary is not cached: an optional part failing upstream.
  it('a failed optional part: null in data, its error in meta', async () => {
    env.faults.set('nax/summary', { status: 500 });
    const body = await conforming('/pages/home?page_size=2');
    env.faults.clear();
    expect(body.data['nax']).toBeNull();
    expect(body.meta.parts['nax']!.status).toBe('error');
  });

  const pages = (): string[] => [
    '/pages/home',
    '/pages/home?page_size=3',
    `/pages/block?h=${head - 40}`,
    `/pages/block?h=${blockHash(1, head - 41)}`,
    `/pages/tx?hash=${txHash(1, nrc20Height(false), 0)}`,
    `/pages/tx?hash=${txHash(1, nrc20Height(true), 0)}`,
    `/pages/address?address=${normalAddress(1, 3)}`,
    `/pages/address?address=${normalAddress(1, 17)}&page_size=5`,
    '/pages/token?token=NAX',
    `/pages/token?contract=${TOKENS[1]!.contract}&page_size=2`,
    `/pages/blockinfo?h=${head - 50}`,
  ];

  it('every page, the CONFIG_FILE page included', async () => {
    const seen = new Set<string>();
    for (const q of pages()) {
      await conforming(q);
      seen.add(q.split('?')[0]!);
    }
    expect([...seen].sort()).toEqual([
      '/pages/address',
      '/pages/block',
      '/pages/blockinfo',
      '/pages/home',
      '/pages/token',
      '/pages/tx',
    ]);
  });

  it('a pending transaction: its block part skipped (null)', async () => {
    const pending = (await get(env.base, '/tx/list/pending')).json as { data: { list: Array<{ tx_hash: string }> } };
    const body = await conforming(`/pages/tx?hash=${pending.data.list[0]!.tx_hash}`);
    expect(body.data['block']).toBeNull();
    expect(body.meta.parts['block']!.status).toBe('skipped');
  });

  it('a 400 and a required part’s 404 validate as error envelopes', async () => {
    const bad = await get(env.base, '/pages/block?h=abc');
    expect(bad.status).toBe(400);
    expect(problems('/pages/block', '400', bad.json)).toEqual([]);
    const missing = await get(env.base, `/pages/tx?hash=${'0'.repeat(64)}`);
    expect(missing.status).toBe(404);
    expect(problems('/pages/tx', '404', missing.json)).toEqual([]);
  });

  it('a wrong page answer is refused', async () => {
    const body = await conforming('/pages/home');
    const wrong = (patch: (b: PageBody & Record<string, unknown>) => void): string[] => {
      const copy = structuredClone(body) as PageBody & Record<string, unknown>;
      patch(copy);
      return problems('/pages/home', '200', copy);
    };
    expect(wrong((b) => (b.data['head'] = null))).not.toEqual([]); // a required part is never null
    expect(wrong((b) => (b.data['extra'] = {}))).not.toEqual([]);
    expect(wrong((b) => delete b.data['nax'])).not.toEqual([]);
    expect(wrong((b) => (b.data['blocks'] = { list: 'none' }))).not.toEqual([]);
    expect(wrong((b) => (b.meta.parts['txs']!.status = 'fine'))).not.toEqual([]);
    expect(wrong((b) => Reflect.deleteProperty(b, 'meta'))).not.toEqual([]);
  });
});

describe('batch answers conform to /openapi.json', () => {
  const post = (body: unknown) =>
    get(env.base, '/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('a mixed batch: items of several endpoints, an invalid item, an unknown path, a non-string', async () => {
    const requests = [
      'block/max',
      '/tx/list?page=2&page_size=3',
      `address/info?address=${normalAddress(1, 3)}`,
      'token/list',
      'tx/count/history?days=2',
      'tx/list?page=x',
      'no/such',
      42,
    ];
    const res = await post({ requests });
    expect(res.status).toBe(200);
    const items = (res.json as { data: Array<{ status: number }> }).data;
    expect(items.map((i) => i.status)).toEqual([200, 200, 200, 200, 200, 400, 404, 400]);
    expect(problems('/batch', '200', res.json, 'post')).toEqual([]);
    const wrong = structuredClone(res.json) as { data: Array<Record<string, unknown>> };
    wrong.data[0]!['cache'] = 'MAYBE';
    wrong.data[1]!['body'] = { code: 0, msg: 'success', data: { surprise: true } };
    expect(problems('/batch', '200', wrong, 'post').length).toBeGreaterThanOrEqual(2);
  });

  it('a batch over MAX_BATCH_ITEMS (400) and GET /batch (405) validate as error envelopes', async () => {
    const big = await post({ requests: Array.from({ length: 21 }, () => 'block/max') });
    expect(big.status).toBe(400);
    expect(problems('/batch', '400', big.json, 'post')).toEqual([]);
    const other = await get(env.base, '/batch');
    expect(other.status).toBe(405);
    expect(problems('/batch', '405', other.json, 'post')).toEqual([]);
  });
});
