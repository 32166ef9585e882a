/**
 * POST /batch in the OpenAPI document: the request body (`requests`, at most
 * MAX_BATCH_ITEMS) and the answer batch-route.ts writes (per item: request,
 * status, cache result and the item's own envelope, any endpoint's or an error).
 */
import { ENDPOINT_NAMES } from '../catalogue/types.js';
import { errorResponse } from '../openapi/api-paths.js';
import { SchemaRegistry } from '../openapi/json-schema.js';
import type { OpenApiContribution, SchemaObject } from '../openapi/types.js';
import { ErrorEnvelope, schemaForEndpoint } from '../schema/index.js';
import { blockMax } from '../endpoints/block-max.js';
import { txList } from '../endpoints/tx-list.js';

const JSON_TYPE = 'application/json';

function itemSchema(registry: SchemaRegistry): SchemaObject {
  const envelopes = ENDPOINT_NAMES.map((name) => {
    const s = schemaForEndpoint(name);
    if (s === undefined) throw new Error(`no record schema for endpoint ${name}`);
    return registry.named(s);
  });
  return {
    type: 'object',
    properties: {
      request: { type: 'string', description: 'The item as given (cut at 200 characters).' },
      status: { type: 'integer', description: 'The HTTP status a direct request would get.' },
      cache: { type: 'string', enum: ['HIT', 'MISS', 'STALE', 'BYPASS', 'ERROR'] },
      body: {
        description: "The item's own envelope: the endpoint's answer, or an error envelope.",
        anyOf: [...envelopes, registry.named(ErrorEnvelope)],
      },
    },
    required: ['request', 'status', 'cache', 'body'],
    additionalProperties: false,
  };
}

export function batchOpenapi(limits: { maxBatchItems: number }): OpenApiContribution {
  const registry = new SchemaRegistry();
  const max = limits.maxBatchItems;
  const answer: SchemaObject = {
    type: 'object',
    properties: {
      code: { type: 'integer', const: 0 },
      msg: { type: 'string' },
      data: { type: 'array', items: itemSchema(registry), description: 'One answer per item, in order.' },
    },
    required: ['code', 'msg', 'data'],
    additionalProperties: false,
  };
  const body: SchemaObject = {
    type: 'object',
    properties: {
      requests: {
        type: 'array',
        minItems: 1,
        maxItems: max,
        items: { type: 'string', description: 'An endpoint path (leading / optional) with its query.' },
        examples: [[blockMax.path, `${txList.path}?page=2&page_size=20`]],
      },
    },
    required: ['requests'],
  };
  return {
    paths: {
      '/batch': {
        post: {
          operationId: 'batch',
          summary: `Up to ${max} endpoint requests in one`,
          description:
            'Each item is validated and resolved like a direct GET (same cache); one bad item ' +
            'does not fail the others. Counts toward the rate limit once per item. Not cached ' +
            '(Cache-Control: no-store). Other methods on /batch answer 405 (Allow: POST, OPTIONS).',
          tags: ['batch'],
          requestBody: { required: true, content: { [JSON_TYPE]: { schema: body } } },
          responses: {
            '200': {
              description: 'Per item: request, status, cache result and its envelope.',
              content: { [JSON_TYPE]: { schema: answer } },
            },
            '400': errorResponse(
              `Not JSON, or no \`requests\` array of 1 to ${max} items ` +
                '(codes 4000, 4001, 4002); the message names requests.',
              registry,
            ),
            '405': errorResponse(
              'Any method other than POST (and OPTIONS) on /batch (code 4050); Allow: POST, OPTIONS.',
              registry,
            ),
            '429': errorResponse(
              'The batch exceeds the remaining rate-limit budget, counted per item (code 4290); refused as a whole.',
              registry,
            ),
          },
        },
      },
    },
    schemas: registry.schemas,
  };
}
