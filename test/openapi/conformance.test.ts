/**
 * The document the running proxy serves at /openapi.json describes its real
 * answers: every endpoint's answer from the simulator (through the proxy)
 * validates against that path's 200 schema with ajv (JSON Schema 2020-12, the
 * OpenAPI 3.1 dialect), and errors, /status and /dashboard/data.json against
 * theirs. Every catalogue endpoint is exercised.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyHandle } from '../../src/app.js';
import { ENDPOINT_NAMES } from '../../src/catalogue/types.js';
import type { OpenApiDocument } from '../../src/openapi/types.js';
import { compileSpec, dataSpecOf, validateRecord } from '../../src/schema/index.js';
import { contractAddress, normalAddress, startSimulator, type SimulatorHandle } from '../../src/sim/index.js';
import { startTestProxy } from '../helpers/proxy.js';

let sim: SimulatorHandle;
let proxy: ProxyHandle;
let doc: OpenApiDocument;
const ajv = new Ajv2020({ strict: false, allErrors: true });

beforeAll(async () => {
  sim = await startSimulator({ blockIntervalMs: 0 });
  proxy = await startTestProxy([sim.url]);
  const res = await fetch(`${proxy.url}/openapi.json`);
  expect(res.headers.get('content-type')).toContain('application/json');
  doc = (await res.json()) as OpenApiDocument;
  ajv.addSchema({ ...doc, $id: 'urn:chainproxy:openapi' } as object);
}, 30_000);

afterAll(async () => {
  await proxy?.close();
  await sim?.close();
});

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** Problems validating a body against the document's schema for path/status/content type. */
function problems(path: string, status: string, body: unknown, type = 'application/json'): string[] {
  const at = pointer('paths', path, 'get', 'responses', status, 'content', type, 'schema');
  const ref = `urn:chainproxy:openapi#/${at}`;
  const validate = ajv.getSchema(ref);
  if (validate === undefined) throw new Error(`no schema at ${ref}`);
  return validate(body)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

const mid = normalAddress(1, 17);
const hot = normalAddress(1, 3);
const QUERIES = [
  `/tx/nrc20?address=${mid}`,
  `/tx/nrc20?address=${mid}&page=3&page_size=7`,
  '/tx/list',
  '/tx/list?page=2&page_size=50',
  '/tx/list?block_height=4841000',
  '/tx/list/pending',
  `/tx/listByAddress?address=${hot}`,
  `/tx/listByAddress?address=${mid}&is_nrc20=true`,
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
  '/token/tx/list?token=NAX',
  '/token/tx/list?contract=n1zUNqeBPvsyrw5zxp9mKcDdLTjuaEL7s39&page=2',
  '/token/holders?token=ATP',
  '/holders',
  '/holders?page=400&page_size=2',
  '/nax/history',
  '/nax/summary',
  `/nax/profits?address=${mid}`,
  `/address/info?address=${hot}`,
  `/address/info?address=${contractAddress(1, 5)}`,
  '/address/count/history',
  '/chain/summary',
];

describe('answers conform to /openapi.json', () => {
  it('covers every catalogue endpoint', () => {
    const covered = new Set(QUERIES.map((q) => q.slice(1).split('?')[0]));
    covered.add('tx/detail'); // from a listed hash below
    expect([...covered].sort()).toEqual([...ENDPOINT_NAMES].sort());
  });

  for (const q of QUERIES) {
    it(q, async () => {
      const res = await fetch(`${proxy.url}${q}`);
      expect(res.status, q).toBe(200);
      const body = (await res.json()) as { code: number };
      expect(body.code).toBe(0);
      expect(problems(q.split('?')[0]!, '200', body)).toEqual([]);
    });
  }

  it('/tx/detail of a confirmed and of a pending transaction', async () => {
    const list = (await (await fetch(`${proxy.url}/tx/list?page_size=5`)).json()) as {
      data: { list: Array<{ tx_hash: string }> };
    };
    const pending = (await (await fetch(`${proxy.url}/tx/list/pending`)).json()) as {
      data: { list: Array<{ tx_hash: string }> };
    };
    for (const hash of [list.data.list[0]!.tx_hash, pending.data.list[0]!.tx_hash]) {
      const body: unknown = await (await fetch(`${proxy.url}/tx/detail?hash=${hash}`)).json();
      expect(problems('/tx/detail', '200', body)).toEqual([]);
    }
  });

  it('a mismatching answer is caught', () => {
    expect(
      problems('/block/max', '200', { code: 0, msg: 'success', data: { height: 'high', server_timestamp: 1 } }),
    ).not.toEqual([]);
    expect(problems('/block/max', '200', { code: 0, msg: 'success', data: { server_timestamp: 1 } })).not.toEqual([]);
  });

  it('an unknown field: the document accepts it as production does; the strict record check (tests) refuses it', () => {
    const data = { height: 1, server_timestamp: 1, extra: true };
    expect(problems('/block/max', '200', { code: 0, msg: 'success', data })).toEqual([]);
    expect(compileSpec(dataSpecOf('block/max')!)(data)).toBe(true);
    expect(validateRecord(dataSpecOf('block/max')!, data)).toEqual(['extra: unexpected field (BlockMax)']);
  });

  it('a 400 and a relayed 404 validate as error envelopes', async () => {
    const bad = await fetch(`${proxy.url}/tx/list?page=0`);
    expect(bad.status).toBe(400);
    expect(problems('/tx/list', '400', await bad.json())).toEqual([]);
    const missing = await fetch(`${proxy.url}/tx/detail?hash=${'0'.repeat(64)}`);
    expect(missing.status).toBe(404);
    expect(problems('/tx/detail', '404', await missing.json())).toEqual([]);
  });

  it('/status and /dashboard/data.json validate', async () => {
    expect(problems('/status', '200', await (await fetch(`${proxy.url}/status`)).json())).toEqual([]);
    expect(
      problems('/dashboard/data.json', '200', await (await fetch(`${proxy.url}/dashboard/data.json`)).json()),
    ).toEqual([]);
  });

  it('names the public base URL as its server', () => {
    expect(doc.servers).toEqual([{ url: 'https://api.example.test' }]);
  });
});
