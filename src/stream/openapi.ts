/**
 * GET /stream/heads in the OpenAPI document: a `text/event-stream` (OpenAPI
 * 3.1 has no schema for one event, so the stream is a string described in
 * words) and `HeadEvent`, the JSON Schema of an event's `data` line, published
 * as a component and referenced from the stream's schema (`x-event-data`).
 */
import { errorResponse } from '../openapi/api-paths.js';
import { ref, SchemaRegistry } from '../openapi/json-schema.js';
import type { OpenApiContribution, ParameterObject, SchemaObject } from '../openapi/types.js';
import { Block } from '../schema/index.js';
import { STREAM_PATH } from './route.js';

const HEAD_EVENT = 'HeadEvent';
const REBASE_EVENT = 'RebaseEvent';
const GAP_EVENT = 'GapEvent';

/** What frames.ts writes after `data: ` for `event: rebase` and `event: gap`. */
const TYPED_EVENTS: Record<string, SchemaObject> = {
  [REBASE_EVENT]: {
    type: 'object',
    description:
      'The JSON of an `event: rebase` (id: `height`): the proxy followed its upstreams down; heights ' +
      'above `height` received earlier are no longer believed. Events go on from `height + 1`.',
    properties: {
      height: { type: 'integer', minimum: 0, description: 'The head the proxy now believes (also the event id).' },
      from: {
        type: 'integer',
        minimum: 0,
        description: 'The height the client may hold events up to (the old head, or its resume point).',
      },
      final_height: {
        type: ['integer', 'null'],
        minimum: 0,
        description: 'Highest final block known; null until known.',
      },
      time: { type: 'integer', minimum: 0, description: 'Unix ms at which this replica sent the event.' },
    },
    required: ['height', 'from', 'final_height', 'time'],
    additionalProperties: false,
  },
  [GAP_EVENT]: {
    type: 'object',
    description:
      'The JSON of an `event: gap` (id: `to`): the heights `from`..`to` are not streamed (a jump of the ' +
      'head, or older than the history; fetch them from block/list if needed). Events go on above `to`.',
    properties: {
      from: { type: 'integer', minimum: 0, description: 'First height not replayed.' },
      to: { type: 'integer', minimum: 0, description: 'Last height not replayed (also the event id).' },
    },
    required: ['from', 'to'],
    additionalProperties: false,
  },
};

/** What feed.ts writes after `data: `. */
function headEventSchema(registry: SchemaRegistry): SchemaObject {
  return {
    type: 'object',
    description: 'The JSON of one head event (its `data:` line).',
    properties: {
      height: { type: 'integer', minimum: 0, description: 'The block height (also the event id).' },
      final_height: {
        type: ['integer', 'null'],
        minimum: 0,
        description: 'Highest final block known when the event was sent; null until known.',
      },
      time: { type: 'integer', minimum: 0, description: 'Unix ms at which this replica sent the event.' },
      block: {
        description: 'The block record exactly as block/list returns it, or null when the proxy could not get it.',
        anyOf: [registry.named(Block), { type: 'null' }],
      },
    },
    required: ['height', 'final_height', 'time', 'block'],
    additionalProperties: false,
  };
}

const RESUME_PATTERN = '^[0-9]{1,15}$';

const PARAMETERS: ParameterObject[] = [
  {
    name: 'Last-Event-ID',
    in: 'header',
    required: false,
    description:
      'Height to resume after (EventSource sends it on reconnect): the kept heads above it are replayed ' +
      'first, then live events follow. Wins over lastEventId. Anything but digits answers 400 (code 4001).',
    schema: { type: 'string', pattern: RESUME_PATTERN },
    example: '4842005',
  },
  {
    name: 'lastEventId',
    in: 'query',
    required: false,
    description:
      'Same as the Last-Event-ID header, for clients that cannot set headers. ' +
      'Anything but digits answers 400 (code 4001), given twice 400 (code 4003).',
    schema: { type: 'string', pattern: RESUME_PATTERN },
    example: '4842005',
  },
];

const FORMAT = [
  'One event per new block, in height order: `id: <height>` then one `data: <JSON>` ' +
    'line (a HeadEvent: height, final_height, time, block), then a blank line.',
  'The stream opens with `retry: <ms>` (STREAM_RETRY_MS) and the comment `: ' +
    'chainproxy head stream`; `: heartbeat` comments follow every STREAM_HEARTBEAT_MS.',
  'Without Last-Event-ID the newest event is sent at once; with it, the heads after that height ' +
    'still in the history (STREAM_HISTORY) are replayed (paced by the socket), no height twice.',
  '`event: rebase` (a RebaseEvent) when the proxy follows its upstreams down below ' +
    'heights the client got; `event: gap` (a GapEvent) when the head jumps more than 100 ' +
    'blocks, and before a replay when heights after the resume point are no longer kept.',
].join(' ');

export function streamOpenapi(): OpenApiContribution {
  const registry = new SchemaRegistry();
  const event = headEventSchema(registry);
  return {
    paths: {
      [STREAM_PATH]: {
        get: {
          operationId: 'streamHeads',
          summary: 'New blocks as server-sent events',
          description:
            `${FORMAT} GET only: HEAD and other methods answer 405; OPTIONS answers the CORS ` +
            'preflight (Last-Event-ID allowed). An unreadable resume point answers 400 before any ' +
            'stream opens. Not compressed. Opening a stream counts once toward the rate limit.',
          tags: ['stream'],
          parameters: PARAMETERS,
          responses: {
            '200': {
              description:
                'The event stream, open until the client leaves, reads too ' +
                'slowly (STREAM_MAX_BUFFER_BYTES) or the server shuts down.',
              headers: {
                'Cache-Control': { description: '`no-store`.', schema: { type: 'string', const: 'no-store' } },
                'X-Accel-Buffering': {
                  description: '`no`: proxies such as nginx must not buffer the stream.',
                  schema: { type: 'string', const: 'no' },
                },
                'Access-Control-Allow-Origin': {
                  description: '`*`: any page may subscribe.',
                  schema: { type: 'string', const: '*' },
                },
              },
              content: {
                'text/event-stream': {
                  schema: {
                    type: 'string',
                    description: FORMAT,
                    'x-event-data': ref(HEAD_EVENT),
                    'x-event-types': { rebase: ref(REBASE_EVENT), gap: ref(GAP_EVENT) },
                  },
                },
              },
            },
            '400': errorResponse(
              'An unreadable resume point (code 4001) or lastEventId given twice (code 4003); the message names it.',
              registry,
            ),
            '429': errorResponse(
              'Too many open streams from this client (code 4291, ' +
                'STREAM_MAX_PER_CLIENT), or the rate limit (code 4290, Retry-After).',
              registry,
            ),
            '503': {
              ...errorResponse(
                'Too many open streams on this replica (code 5032, ' +
                  'MAX_STREAMS; 0 turns the stream off), or shutting down.',
                registry,
              ),
              headers: {
                'Retry-After': {
                  description: 'Seconds before reconnecting (STREAM_RETRY_MS rounded up).',
                  schema: { type: 'integer', minimum: 1 },
                },
              },
            },
          },
        },
      },
    },
    schemas: { ...registry.schemas, [HEAD_EVENT]: event, ...TYPED_EVENTS },
  };
}
