/**
 * The OpenAPI document: valid OpenAPI 3.1 (a maintained validator), complete
 * against the catalogue (every endpoint, every parameter with its required
 * flag and default), and its parameter schemas agree with the catalogue's
 * parsers at the bounds, so the document cannot drift from the code.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/catalogue/index.js';
import type { ParamLimits, ParamSpec } from '../../src/endpoints/types.js';
import { ENDPOINT_NAMES } from '../../src/catalogue/types.js';
import { dashboardOpenapi } from '../../src/dashboard/openapi.js';
import { apiOpenapi } from '../../src/openapi/api-paths.js';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { opsOpenapi } from '../../src/openapi/ops-paths.js';
import { purgeOpenapi } from '../../src/purge/openapi.js';
import { PAGES } from '../../src/page-table/defaults.js';
import { batchOpenapi } from '../../src/http/batch-openapi.js';
import { compilePages } from '../../src/page-table/plan.js';
import { pagesOpenapi } from '../../src/pages/openapi.js';
import { streamOpenapi } from '../../src/stream/openapi.js';
import { parameterOf } from '../../src/openapi/params.js';
import { CORS_HEADERS } from '../../src/http/header-block.js';
import type { OpenApiDocument, ParameterObject, SchemaObject } from '../../src/openapi/types.js';

const limits: ParamLimits = { maxPageSize: 100, maxDays: 365 };
const catalogue = buildCatalogue();
const pages = compilePages(PAGES, {}, catalogue);

function documentFor(l: ParamLimits = limits): OpenApiDocument {
  return buildOpenApiDocument({
    publicBaseUrl: 'https://api.example.test',
    contributions: [
      apiOpenapi(catalogue, l),
      opsOpenapi(),
      purgeOpenapi(),
      dashboardOpenapi(),
      pagesOpenapi(pages, l),
      batchOpenapi({ maxBatchItems: 20 }),
      streamOpenapi(),
    ],
  });
}

/** Every `$ref` in a value. */
function refsIn(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) v.forEach((x) => refsIn(x, out));
  else if (typeof v === 'object' && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') out.push(x);
      else refsIn(x, out);
    }
  }
  return out;
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const validator = new Validator();
    const res = await validator.validate(JSON.parse(JSON.stringify(documentFor())) as Record<string, unknown>);
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has every catalogue endpoint with exactly its parameters, required flags and defaults', () => {
    const doc = documentFor();
    expect(catalogue.all().map((d) => d.name)).toEqual([...ENDPOINT_NAMES]);
    for (const def of catalogue.all()) {
      const op = doc.paths[`/${def.name}`]?.get;
      expect(op, def.name).toBeDefined();
      const params = op!.parameters ?? [];
      expect(params.map((p) => p.name).sort(), def.name).toEqual(def.params.map((p) => p.name).sort());
      for (const spec of def.params) {
        const p = params.find((x) => x.name === spec.name)!;
        expect(p.in).toBe('query');
        expect(p.required, `${def.name} ${spec.name}`).toBe(spec.required);
        const d = p.schema.default;
        expect(d === undefined ? undefined : String(d), `${def.name} ${spec.name} default`).toBe(spec.defaultValue);
      }
      for (const status of ['200', '400', '404', '429', '502', '504'])
        expect(op!.responses[status], `${def.name} ${status}`).toBeDefined();
    }
  });

  it('names the miss budget (4292) in every 429 where a miss can be refused, with Retry-After', () => {
    const doc = documentFor();
    const gets = Object.entries(doc.paths).filter(
      ([p]) => ENDPOINT_NAMES.some((n) => p === `/${n}`) || p.startsWith('/pages/'),
    );
    expect(gets.length).toBe(ENDPOINT_NAMES.length + pages.size);
    for (const [p, item] of gets) {
      const r = item.get!.responses['429']!;
      expect(r.description, p).toContain('4292');
      expect(r.headers?.['Retry-After'], p).toBeDefined();
    }
  });

  it('documents X-Credits-Remaining and X-Chainproxy-Upstream, and CORS exposes them to browser code', () => {
    const doc = documentFor();
    const exposed = CORS_HEADERS['access-control-expose-headers'].split(', ');
    for (const p of ['/tx/list', '/pages/home']) {
      for (const status of ['200', '429']) {
        const headers = doc.paths[p]!.get!.responses[status]!.headers ?? {};
        for (const h of ['X-Credits-Remaining', 'X-Chainproxy-Upstream'])
          expect(headers[h], `${p} ${status} ${h}`).toBeDefined();
      }
    }
    expect(exposed).toEqual(
      expect.arrayContaining(['X-Credits-Remaining', 'X-Chainproxy-Upstream', 'Retry-After', 'X-Cache']),
    );
  });

  it(
    'declares what /status and /dashboard/data.json return: ' + 'consensus, and an upstream row benched (sittingOut)',
    () => {
      const doc = documentFor();
      const status = doc.components.schemas['Status']!;
      const props = status.properties as Record<string, SchemaObject>;
      expect(Object.keys(props).sort()).toEqual([
        'activity',
        'cache',
        'chain',
        'consensus',
        'fleet',
        'heads',
        'lastGoodAnswerAgoMs',
        'passthrough',
        'ready',
        'readyReason',
        'reload',
        'upstreamIsSimulator',
        'upstreams',
        'uptimeSeconds',
        'version',
      ]);
      expect(status.required).toContain('consensus');
      expect(props['consensus']!.type).toEqual(['object', 'null']);
      expect(Object.keys(props['consensus']!.properties as object).sort()).toEqual(['disputes', 'quorum', 'recent']);
      expect(props['fleet']!.type).toEqual(['object', 'null']);
      expect(status.required).toContain('fleet');
      expect(props['reload']!.type).toEqual(['object', 'null']);
      expect(status.required).toContain('reload');
      const data = (
        doc.paths['/dashboard/data.json']!.get!.responses['200']!.content!['application/json']!.schema
          .properties as Record<string, SchemaObject>
      )['data']!;
      expect(data.required).toContain('consensus');
      const row = doc.components.schemas['UpstreamStatus']!.properties as Record<string, SchemaObject>;
      expect(Object.keys(row['sittingOut']!.properties as object).sort()).toEqual(['detail', 'reason', 'until']);
    },
  );

  it('has the operator endpoints and the status page', () => {
    const doc = documentFor();
    for (const p of [
      '/healthz',
      '/readyz',
      '/status',
      '/metrics',
      '/openapi.json',
      '/dashboard',
      '/dashboard/data.json',
    ])
      expect(doc.paths[p]?.get, p).toBeDefined();
  });

  it('has the head stream: event-stream answer, resume parameters, refusals, the HeadEvent component', () => {
    const doc = documentFor();
    const op = doc.paths['/stream/heads']?.get;
    expect(op).toBeDefined();
    expect(doc.paths['/stream/heads']?.head).toBeUndefined();
    expect(op!.parameters!.map((p) => [p.in, p.name, p.required]).sort()).toEqual([
      ['header', 'Last-Event-ID', false],
      ['query', 'lastEventId', false],
    ]);
    const ok = op!.responses['200']!;
    expect(Object.keys(ok.content!)).toEqual(['text/event-stream']);
    expect(ok.content!['text/event-stream']!.schema).toMatchObject({
      type: 'string',
      'x-event-data': { $ref: '#/components/schemas/HeadEvent' },
    });
    expect(ok.headers?.['Access-Control-Allow-Origin']?.schema).toEqual({ type: 'string', const: '*' });
    expect(Object.keys(op!.responses).sort()).toEqual(['200', '400', '429', '503']);
    expect(op!.responses['400']!.description).toContain('code 4001');
    expect(op!.responses['503']!.headers?.['Retry-After']).toBeDefined();
    expect(op!.responses['429']!.description).toContain('code 4291');
    expect(op!.responses['503']!.description).toContain('code 5032');
    const event = doc.components.schemas['HeadEvent']!;
    expect(event.required).toEqual(['height', 'final_height', 'time', 'block']);
    expect((event.properties as Record<string, SchemaObject>)['block']!.anyOf).toEqual([
      { $ref: '#/components/schemas/Block' },
      { type: 'null' },
    ]);
    expect(doc.tags.map((t) => t.name)).toContain('stream');
  });

  it('resolves every $ref to a component, and every component is used', () => {
    const doc = documentFor();
    const refs = new Set(refsIn(doc.paths).concat(refsIn(doc.components)));
    for (const r of refs) expect(doc.components.schemas[r.replace('#/components/schemas/', '')], r).toBeDefined();
    for (const name of Object.keys(doc.components.schemas))
      expect(refs.has(`#/components/schemas/${name}`), name).toBe(true);
  });

  it('follows the configured limits', () => {
    const doc = documentFor({ maxPageSize: 50, maxDays: 90 });
    const param = (path: string, name: string) => doc.paths[path]!.get!.parameters!.find((p) => p.name === name)!;
    expect(param('/tx/list', 'page_size').schema.maximum).toBe(50);
    expect(param('/tx/count/history', 'days').schema).toMatchObject({ maximum: 90, default: 15 });
    expect(param('/address/count/history', 'days').schema.default).toBe(30);
  });

  it('refuses a path contributed twice', () => {
    expect(() =>
      buildOpenApiDocument({ publicBaseUrl: 'http://x', contributions: [opsOpenapi(), opsOpenapi()] }),
    ).toThrow(/\/healthz contributed twice/);
  });

  it('refuses a parameter without a description (declared beside its parser: the compiler requires it)', () => {
    // @ts-expect-error a parameter without `doc` is not a ParamSpec
    const odd: ParamSpec = { name: 'odd', required: false, parse: (raw) => ({ ok: true, value: raw }) };
    expect(() => parameterOf(odd, limits)).toThrow(TypeError);
  });
});

describe('parameter schemas agree with the catalogue parsers', () => {
  const specs = new Map<string, ParamSpec>();
  for (const def of catalogue.all()) for (const p of def.params) specs.set(`${p.name}/${p.parse.name}`, p);

  const schemaOk = (schema: SchemaObject, raw: string): boolean => {
    if (schema.type === 'integer') {
      if (!/^\d+$/.test(raw)) return false;
      const n = Number(raw);
      return n >= (schema.minimum as number) && n <= (schema.maximum as number);
    }
    if (schema.type === 'string') return new RegExp(schema.pattern as string, 'u').test(raw);
    throw new Error(`unchecked schema type ${String(schema.type)}`);
  };

  const EXAMPLE_ADDR = 'n1d4wXxTVmK4rzyiN1vxhMuzxT441bxr8Fg';
  const HEX = 'ab'.repeat(32);
  const stringProbes = [
    '',
    ' ',
    'NAX',
    'nax',
    'a.b_c-d',
    'a b',
    'a/b',
    'ü',
    'x'.repeat(64),
    'x'.repeat(65),
    '0',
    '7',
    '4842000',
    '99999999999999999',
    EXAMPLE_ADDR,
    EXAMPLE_ADDR.slice(1),
    `${EXAMPLE_ADDR}x`,
    EXAMPLE_ADDR.replace('d4', '0O'),
    EXAMPLE_ADDR.replace('n1', 'N1'),
    `n${'l'.repeat(34)}`,
    HEX,
    HEX.toUpperCase(),
    HEX.slice(1),
    `${HEX}0`,
    `${HEX.slice(1)}g`,
    '-1',
    '+1',
    '1.0',
    '1e3',
    '01',
  ];

  for (const [key, spec] of specs) {
    it(`${key}`, () => {
      const p: ParameterObject = parameterOf(spec, limits);
      const parses = (raw: string) => spec.parse(raw, limits).ok;
      if (p.schema.type === 'boolean') {
        for (const raw of ['true', 'false']) expect(parses(raw), raw).toBe(true);
        expect(parses('yes')).toBe(false);
        return;
      }
      expect(parses(String(p.example)), `example ${String(p.example)}`).toBe(true);
      if (p.schema.type === 'integer') {
        const min = p.schema.minimum as number;
        const max = p.schema.maximum as number;
        expect(parses(String(min)), 'minimum').toBe(true);
        expect(parses(String(max)), 'maximum').toBe(true);
        if (max < Number.MAX_SAFE_INTEGER) expect(parses(String(max + 1)), 'maximum + 1').toBe(false);
        if (min > 0) expect(parses(String(min - 1)), 'minimum - 1').toBe(false);
        for (const raw of ['-1', '+1', '1.0', '1e3', 'abc', '']) expect(parses(raw), raw).toBe(schemaOk(p.schema, raw));
        return;
      }
      for (const raw of stringProbes)
        expect(schemaOk(p.schema, raw), `${JSON.stringify(raw)}: schema vs parser`).toBe(parses(raw));
    });
  }
});
