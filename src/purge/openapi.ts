/**
 * POST /purge in the OpenAPI document: the path, its answer, its parameters,
 * and its line in /status (`cache.purge`, the `PurgeStatus` schema).
 */
import { txDetail } from '../endpoints/tx-detail.js';
import { count, envelope, objectSchema } from '../openapi/ops-paths.js';
import type { OpenApiContribution, SchemaObject } from '../openapi/types.js';
import { TAG_KINDS, tagShapes } from './tag-vocabulary.js';

const PURGE_KIND: SchemaObject = { type: 'string', enum: ['key', 'tag', 'all'] };
const PURGE_MODE: SchemaObject = { type: 'string', enum: ['hard', 'soft'] };

/** Purges applied by this replica and the marks it holds. */
const PURGE_STATUS_SCHEMA: SchemaObject = objectSchema(
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
const PURGE_SCHEMA: SchemaObject = objectSchema({
  kind: PURGE_KIND,
  target: {
    type: 'string',
    description: 'The cache key (canonical), the tag as answers spell it (`address:…`, `finality:…`, `head`), or `*`.',
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

const PURGE_PARAMETERS = [
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
      'Every entry whose answer carries the tag, as the Cache-Tag header shows it: ' +
      `${Object.entries(TAG_KINDS)
        .flatMap(([n, k]) => tagShapes(n, k))
        .map((t) => `\`${t}\``)
        .join(', ')} (\`height:<n>\` is \`finality:<n>\`, \`contract:<address>\` is \`address:<address>\`).`,
    schema: { type: 'string', pattern: `^(${Object.keys(TAG_KINDS).join('|')})(:.+)?$` },
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

const ERROR = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } };
const answered = (description: string) => ({
  description,
  content: { 'application/json': { schema: envelope({ $ref: '#/components/schemas/Purge' }) } },
});

export function purgeOpenapi(): OpenApiContribution {
  return {
    paths: {
      '/purge': {
        post: {
          operationId: 'purge',
          summary: 'Purge cached answers by exact key, tag or all, on every replica (operator only)',
          description:
            'Hard (default): what is purged is never served again; the next request ' +
            'fetches it. Soft: served stale while fetched again. Fleet-wide over the ' +
            'Redis bus; the marks are kept in Redis for replicas that start later.',
          tags: ['operator'],
          parameters: PURGE_PARAMETERS,
          responses: {
            '200': answered('What was purged.'),
            '400': {
              description:
                'A bad purge request: the 400 envelope naming the parameter ' +
                '(4001, 4002 none of key, tag, all; 4003 one given twice).',
              content: ERROR,
            },
            '404': {
              description:
                'Not an address in PURGE_ALLOW, or a Host other than an IP literal, localhost or a ' +
                'name in ADMIN_HOSTS: the answer of an unknown path.',
              content: ERROR,
            },
            '503': answered(
              'Applied on this replica, not across the fleet (5034): Redis did not take the message ' +
                'or the mark, or the other workers were not told; `msg` says what failed, `data` what was done here.',
            ),
          },
        },
      },
    },
    schemas: { Purge: PURGE_SCHEMA, PurgeStatus: PURGE_STATUS_SCHEMA },
  };
}
