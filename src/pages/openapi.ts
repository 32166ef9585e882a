/**
 * The pages as OpenAPI paths, generated from the compiled page table (the
 * built-in pages and those of CONFIG_FILE): one GET per page, its parameters
 * described like the endpoint parameters they are validated like, and an
 * answer whose `data` has one property per part (the part endpoint's `data`)
 * and whose `meta` is the composition's (src/pages/compose.ts).
 */
import type { ParamLimits } from '../endpoints/types.js';
import { dataSpecOf } from '../schema/index.js';
import { ANSWER_HEADERS, errorResponse, RETRY_AFTER } from '../openapi/api-paths.js';
import { componentName, ref, SchemaRegistry } from '../openapi/json-schema.js';
import { parameterOf } from '../openapi/params.js';
import type { OpenApiContribution, OperationObject, ResponseObject, SchemaObject } from '../openapi/types.js';
import { FAILED_PART_TTL_MS } from '../cache/lifetime.js';
import type { CompiledPage, CompiledPart } from '../page-table/plan.js';

const JSON_TYPE = 'application/json';
const PART_META = 'PagePartMeta';

/** `meta.parts.<part>`: what compose.ts's partMeta writes. */
const PART_META_SCHEMA: SchemaObject = {
  type: 'object',
  description: 'How one part was resolved.',
  properties: {
    request: {
      type: ['string', 'null'],
      description: 'Canonical request the part stands for (its cache key); null when skipped.',
    },
    status: { type: 'string', enum: ['ok', 'stale', 'error', 'skipped'] },
    cache: {
      type: 'string',
      enum: ['HIT', 'MISS', 'STALE', 'BYPASS'],
      description: 'Cache result, as for a direct request.',
    },
    age_ms: { type: 'integer', minimum: 0, description: "Age of the part's entry at composition." },
    ttl_ms: { type: 'integer', minimum: 0, description: "Remaining freshness of the part's entry at composition." },
    http_status: { type: 'integer', description: "Status of the part's own answer." },
    head: {
      type: ['integer', 'null'],
      description: "Head the part's entry was fetched at (head-invalidated parts only).",
    },
    final: { const: true, description: 'The part is final content.' },
    stale: {
      type: 'string',
      enum: ['revalidate', 'error'],
      description: 'Why it was served stale: stale-while-revalidate or stale-if-error.',
    },
    behind_head: { const: true, description: 'The part reflects an older head than meta.head even after one refetch.' },
    error: {
      type: 'object',
      properties: { code: { type: 'integer' }, msg: { type: 'string' }, http_status: { type: 'integer' } },
      required: ['code', 'msg', 'http_status'],
      additionalProperties: false,
    },
  },
  required: ['request', 'status'],
  additionalProperties: false,
};

const PAGE_HEADERS: ResponseObject['headers'] = {
  'X-Cache': {
    description:
      'HIT (composed page served from the page cache), MISS (composed now) or STALE (a part is being revalidated).',
    schema: { type: 'string', enum: ['HIT', 'MISS', 'STALE'] },
  },
  'X-Chain-Head': { description: 'Best block height the proxy knows.', schema: { type: 'integer' } },
  ETag: {
    description: 'Weak validator from the page key, the versions of the parts and (head-relative pages) the head.',
    schema: { type: 'string' },
  },
  Age: { description: 'Seconds since the page was composed.', schema: { type: 'integer' } },
  'Cache-Control': {
    description:
      '`public, max-age=<smallest remaining freshness of the parts>`, ' +
      '`immutable` when every part is final; `max-age=0` when STALE.',
    schema: { type: 'string' },
  },
  ...ANSWER_HEADERS,
};

/** JSON Schema of a part's `data`: the endpoint's, or null when the part may fail or be skipped. */
function partData(part: CompiledPart, registry: SchemaRegistry): SchemaObject {
  const spec = dataSpecOf(part.endpoint.name);
  if (spec === undefined) throw new Error(`no record schema for endpoint ${part.endpoint.name}`);
  const schema = registry.convert(spec);
  return part.required ? schema : { anyOf: [schema, { type: 'null' }] };
}

function pageSchema(page: CompiledPage, registry: SchemaRegistry): SchemaObject {
  const shown = page.parts.filter((p) => !p.internal);
  const metaParts = Object.fromEntries(page.parts.map((p) => [p.name, ref(PART_META)]));
  return {
    type: 'object',
    properties: {
      code: { type: 'integer', const: 0 },
      msg: { type: 'string' },
      data: {
        type: 'object',
        description:
          "One key per part: exactly the `data` of that part's " +
          'endpoint; null when an optional part failed or was skipped.',
        properties: Object.fromEntries(shown.map((p) => [p.name, partData(p, registry)])),
        required: shown.map((p) => p.name),
        additionalProperties: false,
      },
      meta: {
        type: 'object',
        properties: {
          page: { const: page.name },
          head: { type: ['integer', 'null'], description: 'Best chain head the page was composed at.' },
          composed_at: { type: 'integer', description: 'Composition time, ms since the epoch.' },
          partial: { const: true, description: "Parts past the client's miss budget were not fetched (code 4292)." },
          parts: {
            type: 'object',
            properties: metaParts,
            required: page.parts.map((p) => p.name),
            additionalProperties: false,
          },
        },
        required: ['page', 'head', 'composed_at', 'parts'],
        additionalProperties: false,
      },
    },
    required: ['code', 'msg', 'data', 'meta'],
    additionalProperties: false,
  };
}

function describeParts(page: CompiledPage): string {
  const parts = page.parts.map(
    (p) =>
      `\`${p.name}\`: ` +
      `${p.endpoint.name}${p.required ? ' (required)' : ''}${p.internal ? ' (internal: in meta only)' : ''}`,
  );
  return (
    `Parts: ${parts.join('; ')}. A required part failing answers with its own error ` +
    'envelope; an optional part failing or skipped is null in data, its error in ' +
    `meta, and the page is kept at most ${FAILED_PART_TTL_MS / 1000} s. HEAD is served too.`
  );
}

function operationOf(
  page: CompiledPage,
  limits: ParamLimits,
  registry: SchemaRegistry,
  schemas: Record<string, SchemaObject>,
): OperationObject {
  const name = componentName(`Page_${page.name}`);
  schemas[name] = pageSchema(page, registry);
  const one = page.exactlyOne;
  const note = one.length > 0 ? `Give exactly one of ${one.join(' or ')}.` : undefined;
  return {
    operationId: `page_${page.name.replace(/-/g, '_')}`,
    summary: `/pages/${page.name}`,
    description: describeParts(page),
    tags: ['pages'],
    parameters: page.def.params.map((p) => parameterOf(p, limits, one.includes(p.name) ? note : undefined)),
    responses: {
      '200': {
        description: 'The composed page: `data` by part, `meta` per part.',
        headers: PAGE_HEADERS,
        content: { [JSON_TYPE]: { schema: ref(name) } },
      },
      '304': { description: 'Not modified (If-None-Match matched the ETag).' },
      '400': errorResponse(
        'Invalid, missing or duplicated page parameter (codes 4001, ' +
          '4002, 4003); the message names it. Nothing is fetched.',
        registry,
      ),
      '404': errorResponse("A required part's not-found envelope (unknown block, hash, address or token).", registry),
      '429': {
        ...errorResponse(
          'Rate limit exceeded (code 4290), or the miss budget cannot pay for a required part (code ' +
            '4292; optional parts beyond it are null with their error in meta); see Retry-After.',
          registry,
        ),
        headers: { ...RETRY_AFTER, ...ANSWER_HEADERS },
      },
      '502': errorResponse('A required part failed upstream with nothing stale to serve (codes 5021-5024).', registry),
      '504': errorResponse('A required part or the page timed out (codes 5040, 5041).', registry),
    },
  };
}

/** Paths and schemas of every compiled page. */
export function pagesOpenapi(pages: ReadonlyMap<string, CompiledPage>, limits: ParamLimits): OpenApiContribution {
  const registry = new SchemaRegistry();
  const schemas: Record<string, SchemaObject> = { [PART_META]: PART_META_SCHEMA };
  const paths: OpenApiContribution['paths'] = {};
  for (const page of pages.values())
    paths[`/pages/${page.name}`] = { get: operationOf(page, limits, registry, schemas) };
  return { paths, schemas: { ...registry.schemas, ...schemas } };
}
