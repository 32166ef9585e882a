/**
 * The OpenAPI schemas of POST /purge: its answer, its parameters, and its line
 * in /status (`cache.purge`).
 */
import { txDetail } from '../endpoints/tx-detail.js';
import type { SchemaObject } from '../openapi/types.js';

const count: SchemaObject = { type: 'integer', minimum: 0 };
const obj = (properties: Record<string, SchemaObject>, description?: string): SchemaObject => ({
  type: 'object',
  required: Object.keys(properties),
  properties,
  ...(description === undefined ? {} : { description }),
});

const PURGE_KIND: SchemaObject = { type: 'string', enum: ['key', 'tag', 'all'] };
const PURGE_MODE: SchemaObject = { type: 'string', enum: ['hard', 'soft'] };

/** Purges applied by this replica and the marks it holds. */
export const PURGE_STATUS_SCHEMA: SchemaObject = obj(
  {
    marks: {
      ...count,
      description: 'Purge marks held (at most 4096 targets, each dropped after the longest life of an entry).',
    },
    here: { ...count, description: 'Purges asked of this replica since start.' },
    fleet: { ...count, description: 'Purges heard from other replicas on the bus since start.' },
    last: {
      type: ['object', 'null'],
      required: ['at', 'kind', 'target', 'mode', 'origin', 'entries'],
      properties: {
        at: { type: 'integer', description: 'ms since the epoch.' },
        kind: PURGE_KIND,
        target: { type: 'string' },
        mode: PURGE_MODE,
        origin: { type: 'string', enum: ['here', 'fleet'] },
        entries: { ...count, description: 'Memory-tier entries it reached here.' },
      },
    },
  },
  'Operator purges (POST /purge).',
);

/** The answer of POST /purge. */
export const PURGE_SCHEMA: SchemaObject = obj({
  kind: PURGE_KIND,
  target: {
    type: 'string',
    description: 'The cache key (canonical), the tag (`address:…`, `token:…`, `height:…`), or `*`.',
  },
  mode: PURGE_MODE,
  at: { type: 'integer', description: 'The purge time, ms since the epoch: entries made at or before it are purged.' },
  purged: { ...count, description: '`memory` + `redis`.' },
  memory: {
    ...count,
    description:
      "Entries of this replica's memory tier the purge reached (dropped, or expired for a " +
      'soft purge). Other replicas count their own (chainproxy_purged_entries_total).',
  },
  redis: {
    ...count,
    description:
      'Entries deleted from Redis: an exact key, hard. Other Redis entries the ' +
      'purge names are never served again, judged by the marks on every replica.',
  },
  reach: {
    type: 'string',
    enum: ['process', 'workers', 'fleet'],
    description:
      'Where the purge went besides this process: nowhere else to go (one process, no Redis), ' +
      "this machine's other workers (WORKERS > 1, no Redis), or every replica (Redis).",
  },
  fleet: {
    type: ['object', 'null'],
    description:
      'With Redis (null without: nothing to store). `stored`: kept for replicas that start or reconnect ' +
      'later; `published`: sent on the bus to the running ones. Either false: the 503 answer (purge again).',
    required: ['stored', 'published'],
    properties: { stored: { type: 'boolean' }, published: { type: 'boolean' } },
  },
});

export const PURGE_PARAMETERS = [
  {
    name: 'key',
    in: 'query' as const,
    required: false,
    description:
      'Exactly one of key, tag, all. An API request as a client sends it, percent-encoded ' +
      `(\`${txDetail.path}?hash=…\`, with or without the leading \`/\` or a scheme and ` +
      'host); canonicalized like a client request, so any spelling names the one entry.',
    schema: { type: 'string' },
  },
  {
    name: 'tag',
    in: 'query' as const,
    required: false,
    description:
      'Every entry depending on an address (`address:<id>`; `contract:<id>` is the same), a token ' +
      '(`token:<name>`) or a block (`height:<n>`: the block, its transaction list, transactions mined in it).',
    schema: { type: 'string', pattern: '^(address|contract|token|height):.+$' },
  },
  {
    name: 'all',
    in: 'query' as const,
    required: false,
    description: 'Every entry.',
    schema: { type: 'string', enum: ['true', '1'] },
  },
  {
    name: 'soft',
    in: 'query' as const,
    required: false,
    description:
      'Serve what is purged stale (X-Cache: STALE) while it is fetched again, instead of never again. Default false.',
    schema: { type: 'string', enum: ['true', 'false', '1', '0'] },
  },
];
