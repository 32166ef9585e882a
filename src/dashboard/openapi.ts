/** The status page's paths in the OpenAPI document. */
import type { OpenApiContribution } from '../openapi/types.js';

export function dashboardOpenapi(): OpenApiContribution {
  const notFound = { description: 'Not an operator address (ADMIN_ALLOW): the 404 envelope of an unknown path.', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } };
  return {
    paths: {
      '/dashboard': {
        get: {
          operationId: 'dashboard',
          summary: 'Live status page (HTML, operator only)',
          tags: ['operator'],
          responses: { '200': { description: 'Self-contained HTML page polling /status and /dashboard/data.json.', content: { 'text/html': { schema: { type: 'string' } } } }, '404': notFound },
        },
      },
      '/dashboard/data.json': {
        get: {
          operationId: 'dashboardData',
          summary: 'Request counters behind the status page (operator only)',
          tags: ['operator'],
          responses: {
            '200': {
              description: 'Cumulative counters; the page turns them into per-minute rates.',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['code', 'msg', 'data'],
                    properties: {
                      code: { type: 'integer' },
                      msg: { type: 'string' },
                      data: {
                        type: 'object',
                        required: ['time', 'requests', 'upstreams', 'rateLimited', 'passthrough'],
                        properties: {
                          time: { type: 'integer' },
                          requests: { type: 'object', required: ['total', 'byCache', 'byStatus'], properties: { total: { type: 'number' }, byCache: { type: 'object', additionalProperties: { type: 'number' } }, byStatus: { type: 'object', additionalProperties: { type: 'number' } } } },
                          upstreams: { type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: 'number' } } },
                          rateLimited: { type: 'number' },
                          passthrough: { type: 'object', properties: { total: { type: 'number' }, failures: { type: 'number' } } },
                        },
                      },
                    },
                  },
                },
              },
            },
            '404': notFound,
          },
        },
      },
    },
  };
}
