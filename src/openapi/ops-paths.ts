/** The operator endpoints as OpenAPI paths. */
import { SchemaRegistry } from './json-schema.js';
import { errorResponse } from './api-paths.js';
import type { OpenApiContribution, SchemaObject } from './types.js';

const JSON_TYPE = 'application/json';
const OPERATOR = ['operator'];

function envelope(data: SchemaObject): SchemaObject {
  return { type: 'object', required: ['code', 'msg', 'data'], properties: { code: { type: 'integer' }, msg: { type: 'string' }, data } };
}

const nullableInt: SchemaObject = { type: ['integer', 'null'] };

/** One upstream in /status (more fields may be added; none is removed). */
const UPSTREAM_STATUS_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['name', 'url', 'healthy', 'lagging', 'head', 'lag', 'breaker', 'inFlight', 'latencyP50Ms', 'latencyP99Ms', 'lastError'],
  properties: {
    name: { type: 'string' },
    url: { type: 'string' },
    healthy: { type: 'boolean' },
    lagging: { type: 'boolean' },
    head: nullableInt,
    lag: nullableInt,
    breaker: { type: 'string', enum: ['closed', 'open', 'half-open'] },
    inFlight: { type: 'integer' },
    latencyP50Ms: { type: ['number', 'null'] },
    latencyP99Ms: { type: ['number', 'null'] },
    lastError: { type: ['string', 'null'] },
    sittingOut: {
      description: 'Present while the upstream is benched for misbehaviour (a head the others refuted, or the minority of too many quorum disputes).',
      type: ['object', 'null'],
      required: ['until', 'reason', 'detail'],
      properties: { until: { type: 'integer', description: 'End of the bench, ms since the epoch.' }, reason: { type: 'string', enum: ['head', 'disputes'] }, detail: { type: 'string' } },
    },
  },
};

const VERSION_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['hash', 'upstreams'],
  properties: { hash: { type: 'string', description: 'SHA-256 of the canonical content, ignored fields left out.' }, upstreams: { type: 'array', items: { type: 'string' } } },
};

/** UPSTREAM_QUORUM ≥ 2: disputes since start and the last ones; null with a quorum of 1. */
const CONSENSUS_SCHEMA: SchemaObject = {
  type: ['object', 'null'],
  required: ['quorum', 'disputes', 'recent'],
  properties: {
    quorum: { type: 'integer' },
    disputes: { type: 'integer', description: 'Disputes (majority or unresolved) since start.' },
    recent: {
      type: 'array',
      description: 'The last disputes (at most 50), oldest first.',
      items: {
        type: 'object',
        required: ['at', 'key', 'endpoint', 'outcome', 'versions'],
        properties: {
          at: { type: 'integer', description: 'ms since the epoch.' },
          key: { type: 'string', description: 'Cache key of the answer voted on.' },
          endpoint: { type: 'string' },
          outcome: { type: 'string', enum: ['majority', 'unresolved'] },
          versions: { type: 'array', items: VERSION_SCHEMA },
        },
      },
    },
  },
};

const STATUS_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['ready', 'readyReason', 'lastGoodAnswerAgoMs', 'upstreamIsSimulator', 'uptimeSeconds', 'chain', 'upstreams', 'cache', 'consensus'],
  properties: {
    ready: { type: 'boolean' },
    readyReason: { type: 'string' },
    lastGoodAnswerAgoMs: nullableInt,
    upstreamIsSimulator: { type: 'boolean' },
    uptimeSeconds: { type: 'integer' },
    chain: { type: 'object', required: ['bestHead', 'finalHeight'], properties: { bestHead: nullableInt, finalHeight: nullableInt } },
    upstreams: { type: 'array', items: { $ref: '#/components/schemas/UpstreamStatus' } },
    cache: { type: 'object' },
    consensus: CONSENSUS_SCHEMA,
  },
};

export function opsOpenapi(): OpenApiContribution {
  const registry = new SchemaRegistry();
  const plain = (description: string, data: SchemaObject) => ({ description, content: { [JSON_TYPE]: { schema: envelope(data) } } });
  return {
    paths: {
      '/healthz': { get: { operationId: 'healthz', summary: 'Liveness', tags: OPERATOR, responses: { '200': plain('Alive.', { type: 'object' }) } } },
      '/readyz': {
        get: {
          operationId: 'readyz',
          summary: 'Readiness: an up-to-date upstream answered within three probe intervals, or the cache can serve within its stale-if-error policy',
          tags: OPERATOR,
          responses: { '200': plain('Ready.', { type: 'object' }), '503': plain('Not ready (code 5033).', { type: 'null' }) },
        },
      },
      '/status': {
        get: {
          operationId: 'status',
          summary: 'Upstreams, chain heights and cache tiers (operator only)',
          tags: OPERATOR,
          responses: { '200': plain('Current state.', { $ref: '#/components/schemas/Status' }), '404': errorResponse('Not an operator address: the answer of an unknown path.', registry) },
        },
      },
      '/metrics': {
        get: {
          operationId: 'metrics',
          summary: 'Prometheus metrics (text exposition format)',
          tags: OPERATOR,
          responses: { '200': { description: 'Metrics.', content: { 'text/plain': { schema: { type: 'string' } } } } },
        },
      },
      '/openapi.json': {
        get: {
          operationId: 'openapi',
          summary: 'This document',
          tags: OPERATOR,
          responses: { '200': { description: 'OpenAPI 3.1 document.', content: { [JSON_TYPE]: { schema: { type: 'object' } } } } },
        },
      },
    },
    schemas: { ...registry.schemas, Status: STATUS_SCHEMA, UpstreamStatus: UPSTREAM_STATUS_SCHEMA },
  };
}
