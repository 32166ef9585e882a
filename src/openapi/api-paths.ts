/**
 * The 22 endpoints as OpenAPI paths: parameters from the catalogue (bounds
 * from the configured limits), answers from the record schemas.
 */
import type { Catalogue } from '../catalogue/index.js';
import type { EndpointDef } from '../catalogue/types.js';
import type { ParamLimits } from '../endpoints/types.js';
import { ErrorEnvelope, schemaForEndpoint } from '../schema/index.js';
import { SchemaRegistry } from './json-schema.js';
import { parameterOf } from './params.js';
import type { OpenApiContribution, OperationObject, ResponseObject, SchemaObject } from './types.js';

/** `tx/list/pending` → `txListPending`. */
function operationIdOf(name: string): string {
  return name
    .split('/')
    .map((part, i) => (i === 0 ? part : part.charAt(0).toUpperCase() + part.slice(1)))
    .join('');
}

const JSON_TYPE = 'application/json';

/** An error answer: the catalogue envelope `{code, msg, data: null}`. */
export function errorResponse(description: string, registry: SchemaRegistry): ResponseObject {
  return { description, content: { [JSON_TYPE]: { schema: registry.named(ErrorEnvelope) } } };
}

/** Headers any answer may carry, hit, miss or error. */
export const ANSWER_HEADERS: NonNullable<ResponseObject['headers']> = {
  'X-Credits-Remaining': {
    description: 'Requests with an `X-API-Key` only: whole credits the key has left in its window after this request.',
    schema: { type: 'integer' },
  },
  'X-Chainproxy-Upstream': {
    description:
      'Present (`simulator`) only when the proxy serves its ' +
      'built-in chain simulator: simulated data, not a real chain.',
    schema: { type: 'string', enum: ['simulator'] },
  },
};

export const RETRY_AFTER: NonNullable<ResponseObject['headers']> = {
  'Retry-After': { description: 'Seconds until the request would be admitted.', schema: { type: 'integer' } },
};

/** The 429 of a request that may lead an upstream request. */
const REFUSED_429 =
  'Rate limit exceeded (code 4290), or the miss budget is spent and the answer is not ' +
  'cached (code 4292: only cached answers are served until it refills); see Retry-After.';

const CACHE_HEADERS: ResponseObject['headers'] = {
  'X-Cache': {
    description: 'HIT, MISS, STALE or BYPASS; ERROR on an error envelope the proxy made.',
    schema: { type: 'string', enum: ['HIT', 'MISS', 'STALE', 'BYPASS', 'ERROR'] },
  },
  'X-Chain-Head': { description: 'Best block height the proxy knows.', schema: { type: 'integer' } },
  ETag: { description: 'Weak validator; send it back in If-None-Match for a 304.', schema: { type: 'string' } },
  Age: { description: 'Seconds since the answer was fetched from the upstream.', schema: { type: 'integer' } },
  'Cache-Control': { description: '`public, max-age=<remaining freshness>`.', schema: { type: 'string' } },
  ...ANSWER_HEADERS,
};

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function describeCaching(def: EndpointDef): string {
  const p = def.policy;
  const head = p.invalidateOnHead ? ' Stale as soon as a new block arrives.' : '';
  return (
    `Cached ${seconds(p.ttlMs)} (immutable content ${seconds(p.finalTtlMs)}, content ` +
    `still moving ${seconds(p.volatileTtlMs)}); stale-while-revalidate ` +
    `${seconds(p.swrMs)}, stale-if-error ${seconds(p.sieMs)}.${head} HEAD is served too.`
  );
}

function operationOf(def: EndpointDef, limits: ParamLimits, registry: SchemaRegistry): OperationObject {
  const envelope = schemaForEndpoint(def.name);
  if (envelope === undefined) throw new Error(`no record schema for endpoint ${def.name}`);
  const eitherNote = def.check !== undefined ? 'Give exactly one of token or contract.' : undefined;
  const okSchema: SchemaObject = registry.named(envelope);
  return {
    operationId: operationIdOf(def.name),
    summary: `/${def.name}`,
    description: describeCaching(def),
    tags: [def.name.split('/')[0] ?? def.name],
    parameters: def.params.map((p) =>
      parameterOf(
        p,
        limits,
        eitherNote !== undefined && (p.name === 'token' || p.name === 'contract') ? eitherNote : undefined,
      ),
    ),
    responses: {
      '200': {
        description:
          'Success envelope (`code` 0) with the records. Fields not listed may ' +
          'appear: the upstream adds them, the proxy passes them through.',
        headers: CACHE_HEADERS,
        content: { [JSON_TYPE]: { schema: okSchema } },
      },
      '304': { description: 'Not modified (If-None-Match matched the ETag).' },
      '400': errorResponse(
        'Invalid, missing or duplicated parameter (codes 4001, 4002, ' +
          '4003); the message names the parameter. No upstream request is made.',
        registry,
      ),
      '404': errorResponse("The upstream's not-found envelope, relayed (unknown hash, block, token).", registry),
      '429': { ...errorResponse(REFUSED_429, registry), headers: { ...RETRY_AFTER, ...ANSWER_HEADERS } },
      '502': errorResponse('Upstream failure with nothing stale to serve (codes 5021-5024).', registry),
      '504': errorResponse('Upstream or request timeout (codes 5040, 5041).', registry),
    },
  };
}

/** Paths and schemas of the catalogue endpoints. */
export function apiOpenapi(catalogue: Catalogue, limits: ParamLimits): OpenApiContribution {
  const registry = new SchemaRegistry();
  const paths: OpenApiContribution['paths'] = {};
  for (const def of catalogue.all()) paths[`/${def.name}`] = { get: operationOf(def, limits, registry) };
  return { paths, schemas: registry.schemas };
}
