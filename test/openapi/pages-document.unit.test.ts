/**
 * Pages and batch in the OpenAPI document, checked against the compiled page
 * table (built-in pages and a CONFIG_FILE page): every page, every page
 * parameter (described like the endpoint parameter with the same parser),
 * every part in `data` with its endpoint's `data` schema and in `meta`; and
 * POST /batch with the configured MAX_BATCH_ITEMS. The check reports a table
 * that diverges from the document.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../src/catalogue/index.js';
import { PAGES } from '../../src/page-table/defaults.js';
import type { ParamLimits } from '../../src/endpoints/types.js';
import { ENDPOINT_NAMES } from '../../src/catalogue/types.js';
import { loadConfig } from '../../src/config/load.js';
import { batchOpenapi } from '../../src/http/batch-openapi.js';
import { apiOpenapi } from '../../src/openapi/api-paths.js';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import type { OpenApiDocument, SchemaObject } from '../../src/openapi/types.js';
import { pagesOpenapi } from '../../src/pages/openapi.js';
import { compilePages, type CompiledPage } from '../../src/page-table/plan.js';
import { tempFile } from '../config/helpers.js';

const limits: ParamLimits = { maxPageSize: 100, maxDays: 365 };
const catalogue = buildCatalogue();
type Pages = ReadonlyMap<string, CompiledPage>;

const CONFIG_PAGES = [
  'pages:',
  '  blockinfo:',
  '    params: { h: required, page_size: optional }',
  '    parts:',
  '      detail: { endpoint: block/detail, query: { h: "{h}" }, required: true }',
  '      txs: { endpoint: tx/list, query: { block_height: "{detail.height}", page_size: "{page_size}" } }',
  '      tokens: { endpoint: token/list, internal: true }',
  '  home:',
  '    params: {}',
  '    parts:',
  '      head: { endpoint: block/max, required: true }',
  '      summary: { endpoint: chain/summary }',
].join('\n');

const configured = loadConfig({ CONFIG_FILE: tempFile('.yaml', CONFIG_PAGES), MAX_BATCH_ITEMS: '7' });
const builtIn: Pages = compilePages(PAGES, {}, catalogue);
const withConfig: Pages = compilePages(PAGES, configured.pages, catalogue);

function documentFor(pages: Pages, maxBatchItems = 20): OpenApiDocument {
  return buildOpenApiDocument({
    publicBaseUrl: 'http://x',
    contributions: [apiOpenapi(catalogue, limits), pagesOpenapi(pages, limits), batchOpenapi({ maxBatchItems })],
  });
}

function component(doc: OpenApiDocument, s: SchemaObject | undefined): SchemaObject {
  const r = s?.$ref;
  if (typeof r !== 'string') throw new Error(`not a reference: ${JSON.stringify(s)}`);
  const c = doc.components.schemas[r.replace('#/components/schemas/', '')];
  if (c === undefined) throw new Error(`no component ${r}`);
  return c;
}

const ok = (doc: OpenApiDocument, path: string): SchemaObject =>
  component(doc, doc.paths[path]?.get?.responses['200']?.content?.['application/json']?.schema);
const props = (s: SchemaObject | undefined): Record<string, SchemaObject> =>
  (s?.properties ?? {}) as Record<string, SchemaObject>;
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Every way the document's pages differ from the page table (empty when they agree). */
function divergences(doc: OpenApiDocument, pages: Pages): string[] {
  const out: string[] = [];
  const documented = Object.keys(doc.paths).filter((p) => p.startsWith('/pages/'));
  const expected = [...pages.keys()].map((n) => `/pages/${n}`);
  for (const p of documented) if (!expected.includes(p)) out.push(`${p}: documented, not in the table`);
  for (const page of pages.values()) {
    const path = `/pages/${page.name}`;
    const op = doc.paths[path]?.get;
    if (op === undefined) {
      out.push(`${path}: missing`);
      continue;
    }
    const params = op.parameters ?? [];
    if (!same(params.map((p) => p.name).sort(), page.def.params.map((p) => p.name).sort()))
      out.push(`${path}: parameters ${params.map((p) => p.name).join(',')}`);
    for (const spec of page.def.params) {
      const p = params.find((x) => x.name === spec.name);
      if (p === undefined) continue;
      if (p.required !== spec.required) out.push(`${path} ${spec.name}: required ${p.required}`);
      const d = p.schema.default;
      if ((d === undefined ? undefined : String(d)) !== spec.defaultValue)
        out.push(`${path} ${spec.name}: default ${String(d)}`);
      // Described like every endpoint parameter validated by the same parser.
      for (const def of catalogue.all()) {
        const twin = def.params.find((x) => x.parse === spec.parse);
        if (twin === undefined) continue;
        const theirs = doc.paths[`/${def.name}`]!.get!.parameters!.find((x) => x.name === twin.name)!;
        const { default: _a, ...mine } = p.schema;
        const { default: _b, ...other } = theirs.schema;
        if (!same(mine, other)) out.push(`${path} ${spec.name}: schema differs from /${def.name} ${twin.name}`);
      }
    }
    const body = ok(doc, path);
    const data = props(body)['data'];
    const shown = page.parts.filter((p) => !p.internal);
    if (
      !same(
        Object.keys(props(data)),
        shown.map((p) => p.name),
      ) ||
      !same(
        data?.required,
        shown.map((p) => p.name),
      )
    )
      out.push(`${path}: data keys ${Object.keys(props(data)).join(',')}`);
    for (const part of shown) {
      const s = props(data)[part.name];
      const endpointData = props(ok(doc, `/${part.endpoint.name}`))['data'];
      const want = part.required ? endpointData : { anyOf: [endpointData, { type: 'null' }] };
      if (!same(s, want))
        out.push(`${path} data.${part.name}: not the data of ${part.endpoint.name}${part.required ? '' : ' or null'}`);
    }
    const metaParts = props(props(body)['meta'])['parts'];
    if (
      !same(
        metaParts?.required,
        page.parts.map((p) => p.name),
      )
    )
      out.push(`${path}: meta parts ${JSON.stringify(metaParts?.required)}`);
  }
  return out;
}

describe('pages in the OpenAPI document', () => {
  it('the CONFIG_FILE page table adds one page and replaces another', () => {
    expect([...withConfig.keys()].sort()).toEqual(['address', 'block', 'blockinfo', 'home', 'token', 'tx']);
    expect(withConfig.get('home')!.parts.map((p) => p.name)).toEqual(['head', 'summary']);
  });

  it('every page, parameter and part of the built-in table is documented as the table says', () => {
    const doc = documentFor(builtIn);
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.startsWith('/pages/'))
        .sort(),
    ).toEqual(['/pages/address', '/pages/block', '/pages/home', '/pages/token', '/pages/tx']);
    expect(divergences(doc, builtIn)).toEqual([]);
  });

  it('so is a table with CONFIG_FILE pages, and a valid OpenAPI 3.1 document', async () => {
    const doc = documentFor(withConfig);
    expect(divergences(doc, withConfig)).toEqual([]);
    const data = props(ok(doc, '/pages/blockinfo'))['data'];
    expect(Object.keys(props(data))).toEqual(['detail', 'txs']); // the internal part is in meta only
    const res = await new Validator().validate(JSON.parse(JSON.stringify(doc)) as Record<string, unknown>);
    expect(res.errors ?? []).toEqual([]);
  });

  it('the check reports a table that diverges from the document', () => {
    const found = divergences(documentFor(builtIn), withConfig);
    expect(found).toContain('/pages/blockinfo: missing');
    expect(found).toContain('/pages/home: data keys head,blocks,txs,pending,today,history,summary,nax');
    expect(found).toContain(
      '/pages/home: meta parts ["head","blocks","txs","pending","today","history","summary","nax"]',
    );
    expect(found.some((f) => f.startsWith('/pages/home: parameters'))).toBe(true);
  });

  it('the token page names its exactly-one parameters; page_size follows the limits with default 10', () => {
    const doc = buildOpenApiDocument({
      publicBaseUrl: 'http://x',
      contributions: [pagesOpenapi(builtIn, { maxPageSize: 50, maxDays: 9 })],
    });
    const params = doc.paths['/pages/token']!.get!.parameters!;
    for (const n of ['token', 'contract'])
      expect(params.find((p) => p.name === n)!.description).toContain('Give exactly one of token or contract.');
    expect(params.find((p) => p.name === 'page_size')!.schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 50,
      default: 10,
    });
    for (const status of ['200', '304', '400', '404', '429', '502', '504'])
      expect(doc.paths['/pages/tx']!.get!.responses[status], status).toBeDefined();
  });
});

describe('POST /batch in the OpenAPI document', () => {
  it('takes 1 to MAX_BATCH_ITEMS request strings', () => {
    const doc = documentFor(builtIn, configured.limits.maxBatchItems);
    const op = doc.paths['/batch']?.post;
    expect(op).toBeDefined();
    expect(doc.paths['/batch']!.get).toBeUndefined();
    const requests = props(op!.requestBody!.content['application/json']!.schema)['requests'];
    expect(requests).toMatchObject({ type: 'array', minItems: 1, maxItems: 7, items: { type: 'string' } });
    for (const status of ['200', '400', '405', '429']) expect(op!.responses[status], status).toBeDefined();
  });

  it("an item's body is any endpoint's answer or an error envelope", () => {
    const doc = documentFor(builtIn);
    const answer = doc.paths['/batch']!.post!.responses['200']!.content!['application/json']!.schema;
    const item = props(answer)['data']!.items as SchemaObject;
    const bodies = (props(item)['body']!.anyOf as SchemaObject[]).map((s) => s.$ref);
    const endpoints = ENDPOINT_NAMES.map(
      (n) => doc.paths[`/${n}`]!.get!.responses['200']!.content!['application/json']!.schema.$ref,
    );
    expect(bodies.sort()).toEqual([...endpoints, '#/components/schemas/ErrorEnvelope'].sort());
    expect(props(item)['cache']!.enum).toEqual(['HIT', 'MISS', 'STALE', 'BYPASS', 'ERROR']);
  });
});
