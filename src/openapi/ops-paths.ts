/** The operator endpoints as OpenAPI paths. */
import { SchemaRegistry } from './json-schema.js';
import { errorResponse } from './api-paths.js';
import { FLEET_STATUS_SCHEMA } from './fleet-schema.js';
import type { OpenApiContribution, SchemaObject } from './types.js';

const JSON_TYPE = 'application/json';
const OPERATOR = ['operator'];

/** The `{code, msg, data}` success envelope around `data`. */
export function envelope(data: SchemaObject): SchemaObject {
  return {
    type: 'object',
    required: ['code', 'msg', 'data'],
    properties: { code: { type: 'integer' }, msg: { type: 'string' }, data },
  };
}

const nullableInt: SchemaObject = { type: ['integer', 'null'] };

/** One upstream in /status (more fields may be added; none is removed). */
const UPSTREAM_STATUS_SCHEMA: SchemaObject = {
  type: 'object',
  required: [
    'name',
    'url',
    'healthy',
    'lagging',
    'head',
    'lag',
    'breaker',
    'inFlight',
    'latencyP50Ms',
    'latencyP99Ms',
    'lastError',
    'lastErrorAgoMs',
  ],
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
    lastErrorAgoMs: { ...nullableInt, description: 'Ms since lastError was recorded.' },
    sittingOut: {
      description:
        'Present while the upstream is benched for misbehaviour (a head the ' +
        'others refuted, or the minority of too many quorum disputes).',
      type: ['object', 'null'],
      required: ['until', 'reason', 'detail'],
      properties: {
        until: { type: 'integer', description: 'End of the bench, ms since the epoch.' },
        reason: { type: 'string', enum: ['head', 'disputes'] },
        detail: { type: 'string' },
      },
    },
  },
};

const VERSION_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['hash', 'upstreams'],
  properties: {
    hash: { type: 'string', description: 'SHA-256 of the canonical content, ignored fields left out.' },
    upstreams: { type: 'array', items: { type: 'string' } },
  },
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

/** A count in a schema. */
export const count: SchemaObject = { type: 'integer', minimum: 0 };
/** An object schema whose properties are all required. */
export const objectSchema = (properties: Record<string, SchemaObject>, description?: string): SchemaObject => ({
  type: 'object',
  required: Object.keys(properties),
  properties,
  ...(description === undefined ? {} : { description }),
});

/** How entries are invalidated; only `mode` and `unchangedRefetches` under the head rule. */
const INVALIDATION_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['mode'],
  properties: {
    mode: { type: 'string', enum: ['precise', 'head'] },
    coveredHeight: { ...nullableInt, description: 'Newest height whose touched set is applied.' },
    judgedFrom: {
      ...nullableInt,
      description:
        'Lowest head a tag-kept entry may have been fetched at to be judged ' +
        "(this replica's first block, or as far back as the fleet's record " +
        'reached); entries fetched below it are stale. Null: no set yet.',
    },
    tags: { ...count, description: 'Tags remembered with the height of the last block naming them.' },
    tagBytes: { ...count, description: 'Estimated bytes of the tag map (charged to CACHE_MAX_BYTES).' },
    blocks: { ...count, description: 'Touched sets published (read here or received from the fleet).' },
    readHere: { ...count, description: 'Blocks read whole by this replica.' },
    pendingSeen: count,
    refreshedAhead: count,
    fallbacks: { ...count, description: 'Blocks that fell back to the head rule, all reasons.' },
    tagsBumped: count,
    entriesInvalidated: count,
    unnamedChanges: {
      ...count,
      description: 'Refetches at the safety bound that found content changed though no block named the entry.',
    },
    guarded: {
      type: 'object',
      additionalProperties: count,
      description: 'Facts not trusted, by reason (chainproxy_invalidation_guarded_total).',
    },
    reorgWindow: {
      ...count,
      description: 'Blocks below the head the last reorg check looked at (down to the newest final block, bounded).',
    },
    windowCuts: { ...count, description: 'Reorg checks the bound cut before the newest final block.' },
    unchangedRefetches: {
      type: 'object',
      additionalProperties: { type: 'object', additionalProperties: count },
      description:
        'Unchanged refetches by endpoint and the rule that ended the entry they replaced ' +
        '(chainproxy_invalidation_unchanged_refetches_total; under the head rule, here only).',
    },
  },
};

const REFETCHES_SCHEMA = objectSchema(
  { refetches: count, unchanged: count },
  'Fetched answers replacing an entry held in memory, and those whose content without stamps was the same.',
);

const nullableMs: SchemaObject = { type: ['integer', 'null'] };

/** The probe cadence and how fast new heads are learned. */
const HEADS_SCHEMA: SchemaObject = {
  type: ['object', 'null'],
  required: [
    'adaptive',
    'mode',
    'blockIntervalMs',
    'windowMs',
    'blocks',
    'probes',
    'probesPerBlockPerUpstream',
    'detectionDelayMs',
  ],
  properties: {
    adaptive: { type: 'boolean', description: 'UPSTREAM_PROBE_DENSE_MS > 0.' },
    mode: { type: 'string', enum: ['fixed', 'learning', 'waiting', 'dense', 'late'] },
    blockIntervalMs: { ...nullableMs, description: 'Median per-block interval observed.' },
    windowMs: {
      type: ['object', 'null'],
      required: ['from', 'to'],
      properties: { from: { type: 'integer' }, to: { type: 'integer' } },
      description: 'Where the next block is expected, after the last new head.',
    },
    blocks: count,
    probes: count,
    probesPerBlockPerUpstream: { type: ['number', 'null'] },
    detectionDelayMs: objectSchema(
      { last: nullableMs, p50: nullableMs, p90: nullableMs, max: nullableMs, samples: count },
      'From the last in-sync probe answer to believing each new head, over the last 128 heads.',
    ),
  },
};

/** GET /stream/activity. */
const ACTIVITY_SCHEMA: SchemaObject = {
  type: ['object', 'null'],
  required: [
    'streams',
    'watched',
    'lingering',
    'latestHeight',
    'historyBytes',
    'historyMaxBytes',
    'watchBytes',
    'watchMaxBytes',
  ],
  properties: {
    streams: count,
    watched: count,
    lingering: count,
    latestHeight: nullableInt,
    historyBytes: count,
    historyMaxBytes: count,
    watchBytes: count,
    watchMaxBytes: count,
  },
};

const CACHE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['memory', 'redis', 'invalidation', 'refetches', 'purge'],
  properties: {
    memory: objectSchema({ entries: count, bytes: count, maxBytes: count, flightsInProgress: count }),
    redis: { type: ['object', 'null'], required: ['healthy'], properties: { healthy: { type: 'boolean' } } },
    invalidation: INVALIDATION_SCHEMA,
    refetches: REFETCHES_SCHEMA,
    purge: { $ref: '#/components/schemas/PurgeStatus' },
  },
};

const STATUS_SCHEMA: SchemaObject = {
  type: 'object',
  required: [
    'version',
    'ready',
    'readyReason',
    'lastGoodAnswerAgoMs',
    'upstreamIsSimulator',
    'uptimeSeconds',
    'chain',
    'upstreams',
    'cache',
    'consensus',
    'activity',
    'heads',
    'fleet',
    'reload',
    'passthrough',
  ],
  properties: {
    version: { type: 'string', description: "The package's version." },
    ready: { type: 'boolean' },
    readyReason: {
      type: 'string',
      description:
        'upstream (an up-to-date upstream answered lately), cache (no up-to-date upstream: ' +
        'serving what the cache holds, within its stale-if-error windows), or why not ready.',
    },
    lastGoodAnswerAgoMs: nullableInt,
    upstreamIsSimulator: { type: 'boolean' },
    uptimeSeconds: { type: 'integer' },
    chain: {
      type: 'object',
      required: ['bestHead', 'finalHeight'],
      properties: { bestHead: nullableInt, finalHeight: nullableInt },
    },
    upstreams: { type: 'array', items: { $ref: '#/components/schemas/UpstreamStatus' } },
    cache: CACHE_SCHEMA,
    consensus: CONSENSUS_SCHEMA,
    activity: ACTIVITY_SCHEMA,
    heads: HEADS_SCHEMA,
    fleet: FLEET_STATUS_SCHEMA,
    reload: {
      type: ['object', 'null'],
      description:
        'The last configuration reload (SIGHUP); null before one. `applied`: the live settings it changed; ' +
        '`restartNeeded`: changed settings kept at their running values until a restart; `errors`: why an ' +
        'invalid file was refused (the running configuration kept).',
      required: ['at', 'result', 'applied', 'restartNeeded', 'errors'],
      properties: {
        at: { type: 'string', format: 'date-time' },
        result: { type: 'string', enum: ['applied', 'invalid'] },
        applied: { type: 'array', items: { type: 'string' } },
        restartNeeded: { type: 'array', items: { type: 'string' } },
        errors: { type: 'array', items: { type: 'string' } },
      },
    },
    passthrough: {
      type: ['array', 'null'],
      description:
        'A line per PASSTHROUGH prefix; null without PASSTHROUGH. `policy`: `off`, `head`, a duration ' +
        "(`2000ms`) or `backend` (the backend's own Cache-Control); `answers`: answers by X-Cache since start, " +
        'and bodies over PASSTHROUGH_CACHE_MAX_BODY_BYTES (`TOO_BIG`).',
      items: {
        type: 'object',
        required: ['prefix', 'backend', 'policy', 'answers'],
        properties: {
          prefix: { type: 'string' },
          backend: { type: 'string' },
          policy: { type: 'string' },
          answers: { type: 'object', additionalProperties: { type: 'integer' } },
        },
      },
    },
  },
};

export function opsOpenapi(): OpenApiContribution {
  const registry = new SchemaRegistry();
  const plain = (description: string, data: SchemaObject) => ({
    description,
    content: { [JSON_TYPE]: { schema: envelope(data) } },
  });
  return {
    paths: {
      '/healthz': {
        get: {
          operationId: 'healthz',
          summary: 'Liveness',
          tags: OPERATOR,
          responses: { '200': plain('Alive.', { type: 'object' }) },
        },
      },
      '/readyz': {
        get: {
          operationId: 'readyz',
          summary:
            'Readiness: an up-to-date upstream answered within three probe ' +
            'intervals, or the cache can serve within its stale-if-error policy',
          tags: OPERATOR,
          responses: {
            '200': plain(
              'Ready: `reason` says what it serves from (an up-to-date upstream, or the cache during an outage).',
              {
                type: 'object',
                required: ['status', 'reason'],
                properties: { status: { const: 'ready' }, reason: { type: 'string', enum: ['upstream', 'cache'] } },
              },
            ),
            '503': plain('Not ready (code 5033).', { type: 'null' }),
          },
        },
      },
      '/status': {
        get: {
          operationId: 'status',
          summary: 'Upstreams, chain heights and cache tiers (operator only)',
          tags: OPERATOR,
          responses: {
            '200': plain('Current state.', { $ref: '#/components/schemas/Status' }),
            '404': errorResponse('Not an operator address: the answer of an unknown path.', registry),
          },
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
          responses: {
            '200': { description: 'OpenAPI 3.1 document.', content: { [JSON_TYPE]: { schema: { type: 'object' } } } },
          },
        },
      },
    },
    schemas: {
      ...registry.schemas,
      Status: STATUS_SCHEMA,
      UpstreamStatus: UPSTREAM_STATUS_SCHEMA,
    },
  };
}
