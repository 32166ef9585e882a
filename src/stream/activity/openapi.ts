/**
 * GET /stream/activity in the OpenAPI document: the stream (a string
 * described in words, as for /stream/heads), `ActivityEvent` (the JSON of a
 * block event, its `txs` the `Transaction` records of tx/list) and
 * `ActivityPendingEvent`; `rebase` and `gap` are the head stream's components.
 */
import { errorResponse } from '../../openapi/api-paths.js';
import { ref, SchemaRegistry } from '../../openapi/json-schema.js';
import type { OpenApiContribution, ParameterObject, SchemaObject } from '../../openapi/types.js';
import { Transaction } from '../../schema/index.js';
import { ACTIVITY_PATH } from './index.js';

const ACTIVITY_EVENT = 'ActivityEvent';
const PENDING_EVENT = 'ActivityPendingEvent';
const ADDRESS = '^n[1-9A-HJ-NP-Za-km-z]{34}$';

function activityEventSchema(registry: SchemaRegistry): SchemaObject {
  return {
    type: 'object',
    description:
      'The JSON of one activity event (its `data:` line; id: ' +
      '`height`): a block that names a watched address or contract.',
    properties: {
      height: { type: 'integer', minimum: 0, description: 'The block height (also the event id).' },
      block_hash: { type: 'string', description: 'The block hash as the block reader read it.' },
      complete: {
        type: 'boolean',
        description: 'false when the block (or its transaction list) could not be read whole: `txs` may miss records.',
      },
      txs: {
        type: 'array',
        description:
          "The block's transaction records (exactly as tx/list returns them) that " +
          "name one of this connection's watched entities; empty when the block " +
          "names it otherwise (the miner's reward, a transaction entering the pool).",
        items: registry.named(Transaction),
      },
    },
    required: ['height', 'block_hash', 'complete', 'txs'],
    additionalProperties: false,
  };
}

const PENDING_FIELDS: Record<string, SchemaObject> = {
  hashes: {
    type: 'array',
    items: { type: 'string' },
    description: 'Hashes of the transactions that entered the pool.',
  },
  addresses: {
    type: 'array',
    items: { type: 'string', pattern: ADDRESS },
    description: 'Watched addresses (of this connection) they name.',
  },
  contracts: {
    type: 'array',
    items: { type: 'string', pattern: ADDRESS },
    description: 'Watched contracts (of this connection) they name.',
  },
};

const PENDING: SchemaObject = {
  type: 'object',
  description:
    'The JSON of an `event: pending` (no id: not replayed, best effort): ' +
    'transactions newly seen in the pending pool name watched entities.',
  properties: PENDING_FIELDS,
  required: Object.keys(PENDING_FIELDS),
  additionalProperties: false,
};

const watch = (name: string, what: string): ParameterObject => ({
  name,
  in: 'query',
  required: false,
  description:
    `${what} to watch (repeatable). At least one address or contract, at most ` +
    'STREAM_ACTIVITY_MAX_WATCH in all (duplicates count once); a value that is not a Nebulas ' +
    'address, or one too many, answers 400 (code 4001) naming the parameter, none at all 400 (code 4002).',
  schema: { type: 'array', items: { type: 'string', pattern: ADDRESS } },
  example: ['n1ATWyHVcJ5pxFWC6eT7e8BQABJrHFWhbef'],
});

const RESUME: ParameterObject[] = [
  {
    name: 'Last-Event-ID',
    in: 'header',
    required: false,
    description:
      'Height to resume after (EventSource sends it on reconnect): the kept blocks above it ' +
      'that name a watched entity are replayed. Anything but digits answers 400 (code 4001).',
    schema: { type: 'string', pattern: '^[0-9]{1,15}$' },
  },
  {
    name: 'lastEventId',
    in: 'query',
    required: false,
    description: 'Same as the Last-Event-ID header, for clients that cannot set headers.',
    schema: { type: 'string', pattern: '^[0-9]{1,15}$' },
  },
];

const FORMAT = [
  'One event per block that names a watched address or contract, in height order: `id: <height>` then one ' +
    '`data: <JSON>` line (an ActivityEvent), then a blank line. Blocks that name none are not sent.',
  'The stream opens with `retry: <ms>`, the comment `: chainproxy activity stream` and a ' +
    'bare `id: <height>` (the newest block seen, so a quiet connection has a resume ' +
    'point); `: heartbeat` comments follow every STREAM_HEARTBEAT_MS.',
  'With Last-Event-ID the kept blocks after it that name a watched entity are replayed ' +
    '(STREAM_ACTIVITY_HISTORY_BYTES); a `gap` (GapEvent) names heights the history cannot vouch for; ' +
    '`rebase` (RebaseEvent) as on /stream/heads; `pending` (ActivityPendingEvent) for new pool transactions.',
].join(' ');

export function activityOpenapi(): OpenApiContribution {
  const registry = new SchemaRegistry();
  const event = activityEventSchema(registry);
  return {
    paths: {
      [ACTIVITY_PATH]: {
        get: {
          operationId: 'streamActivity',
          summary: 'Activity of watched addresses and contracts as server-sent events',
          description:
            `${FORMAT} GET only; OPTIONS answers the CORS preflight. Shares MAX_STREAMS and the ` +
            'per-client cap with /stream/heads. Opening a stream counts once toward the rate limit.',
          tags: ['stream'],
          parameters: [watch('address', 'An address'), watch('contract', 'A contract'), ...RESUME],
          responses: {
            '200': {
              description:
                'The event stream, open until the client leaves, reads too ' +
                'slowly (STREAM_MAX_BUFFER_BYTES) or the server shuts down.',
              content: {
                'text/event-stream': {
                  schema: {
                    type: 'string',
                    description: FORMAT,
                    'x-event-data': ref(ACTIVITY_EVENT),
                    'x-event-types': { pending: ref(PENDING_EVENT), rebase: ref('RebaseEvent'), gap: ref('GapEvent') },
                  },
                },
              },
            },
            '400': errorResponse(
              'Invalid, missing or too many watched entities, or an unreadable resume ' +
                'point (codes 4001, 4002, 4003); the message names the parameter.',
              registry,
            ),
            '429': errorResponse(
              'Too many open streams from this client (code 4291), or the rate limit (code 4290).',
              registry,
            ),
            '503': errorResponse(
              'Too many open streams on this replica (code 5032, MAX_STREAMS), or shutting down.',
              registry,
            ),
          },
        },
      },
    },
    schemas: { ...registry.schemas, [ACTIVITY_EVENT]: event, [PENDING_EVENT]: PENDING },
  };
}
