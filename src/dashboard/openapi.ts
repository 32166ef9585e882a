/** The status page's paths in the OpenAPI document. */
import { envelope } from '../openapi/ops-paths.js';
import type { OpenApiContribution } from '../openapi/types.js';

export function dashboardOpenapi(): OpenApiContribution {
  const notFound = {
    description: 'Not an operator address (ADMIN_ALLOW): the 404 envelope of an unknown path.',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
  };
  return {
    paths: {
      '/dashboard': {
        get: {
          operationId: 'dashboard',
          summary: 'Live status page (HTML, operator only)',
          tags: ['operator'],
          responses: {
            '200': {
              description: 'Self-contained HTML page polling /status and /dashboard/history.json.',
              content: { 'text/html': { schema: { type: 'string' } } },
            },
            '404': notFound,
          },
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
                  schema: envelope({
                    type: 'object',
                    required: ['time', 'requests', 'upstreams', 'rateLimited', 'passthrough', 'consensus'],
                    properties: {
                      time: { type: 'integer' },
                      requests: {
                        type: 'object',
                        required: ['total', 'byCache', 'byStatus'],
                        properties: {
                          total: { type: 'number' },
                          byCache: { type: 'object', additionalProperties: { type: 'number' } },
                          byStatus: { type: 'object', additionalProperties: { type: 'number' } },
                        },
                      },
                      upstreams: {
                        type: 'object',
                        additionalProperties: { type: 'object', additionalProperties: { type: 'number' } },
                      },
                      rateLimited: { type: 'number' },
                      passthrough: {
                        type: 'object',
                        properties: { total: { type: 'number' }, failures: { type: 'number' } },
                      },
                      consensus: {
                        type: 'object',
                        description:
                          'Quorum votes by outcome (disputes: majority and ' +
                          'disputed) and times each upstream was benched.',
                        required: ['votes', 'sitOuts'],
                        properties: {
                          votes: { type: 'object', additionalProperties: { type: 'number' } },
                          sitOuts: { type: 'object', additionalProperties: { type: 'number' } },
                        },
                      },
                    },
                  }),
                },
              },
            },
            '404': notFound,
          },
        },
      },
      '/dashboard/history.json': {
        get: {
          operationId: 'dashboardHistory',
          summary: 'The last 15 minutes behind the status page (operator only)',
          tags: ['operator'],
          parameters: [
            {
              name: 'after',
              in: 'query',
              required: false,
              description: 'Only points newer than this time (ms since the epoch).',
              schema: { type: 'string', pattern: '^[0-9]{1,16}$' },
            },
          ],
          responses: {
            '200': {
              description:
                'One point a second (cumulative counters, upstream p50/p99), ' +
                'per-endpoint and per-status totals, counters and grouped events over the ' +
                'window held (at most 15 minutes), the version and the start time.',
              content: {
                'application/json': {
                  schema: envelope({
                    type: 'object',
                    required: [
                      'version',
                      'startedAt',
                      'now',
                      'since',
                      'points',
                      'endpoints',
                      'byStatus',
                      'counters',
                      'events',
                    ],
                    properties: {
                      version: { type: 'string' },
                      startedAt: { type: 'integer' },
                      now: { type: 'integer' },
                      since: { type: 'integer' },
                      points: {
                        type: 'array',
                        items: { type: 'object', additionalProperties: { type: ['number', 'null'] } },
                      },
                      endpoints: {
                        type: 'array',
                        items: {
                          type: 'object',
                          properties: {
                            endpoint: { type: 'string' },
                            requests: { type: 'number' },
                            hitRatio: { type: ['number', 'null'] },
                            p99Ms: { type: ['number', 'null'] },
                          },
                        },
                      },
                      byStatus: { type: 'object', additionalProperties: { type: 'number' } },
                      counters: { type: 'object', additionalProperties: { type: 'number' } },
                      events: {
                        type: 'array',
                        items: {
                          type: 'object',
                          properties: {
                            kind: { type: 'string' },
                            severity: { type: 'string', enum: ['bad', 'warn', 'ok'] },
                            count: { type: 'number' },
                            first: { type: 'integer' },
                            last: { type: 'integer' },
                          },
                        },
                      },
                    },
                  }),
                },
              },
            },
            '400': {
              description: 'A malformed `after`: the 400 envelope naming it.',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
            },
            '404': notFound,
          },
        },
      },
    },
  };
}
