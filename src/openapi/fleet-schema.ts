/** `fleet` in /status: the fleet's members from their Redis heartbeats (src/fleet/members.ts). */
import type { SchemaObject } from './types.js';

const MEMBER_SCHEMA: SchemaObject = {
  type: 'object',
  required: [
    'id',
    'version',
    'namespace',
    'publicBaseUrl',
    'role',
    'host',
    'pid',
    'startedAt',
    'lastSeenAgoMs',
    'self',
    'sameNamespace',
    'skewMs',
  ],
  properties: {
    id: { type: 'string', description: 'Replica id (random per start; also the sender id on the bus).' },
    version: { type: 'string', description: 'Its package version.' },
    namespace: {
      type: 'string',
      description:
        'The Redis namespace of its PUBLIC_BASE_URL: replicas share cached entries only within one namespace.',
    },
    publicBaseUrl: { type: 'string' },
    role: {
      type: 'string',
      enum: ['leader', 'follower', 'alone', 'replica'],
      description:
        'Its turn in the fleet at its last heartbeat: leader (probes, polls and refreshes for the fleet), ' +
        'follower, alone (no leader heard: does its own background work); replica when it has none.',
    },
    host: { type: 'string', description: 'Host name of its machine.' },
    pid: { type: 'integer' },
    startedAt: { type: 'integer', description: 'ms since the epoch, by its own clock.' },
    lastSeenAgoMs: {
      type: 'integer',
      minimum: 0,
      description: "Ms between its last heartbeat and this replica's last one, by Redis's clock.",
    },
    self: { type: 'boolean', description: 'This replica.' },
    sameNamespace: { type: 'boolean', description: "Its namespace is this replica's." },
    clockOffsetMs: {
      type: 'integer',
      description: "Its clock less Redis's at its previous heartbeat (absent before its second, or on older replicas).",
    },
    skewMs: {
      type: ['integer', 'null'],
      description:
        "Its clock less this replica's, through Redis's (within the heartbeats' round trips); null when not " +
        'measured yet. Past 1000 ms a warning is logged. Entries and purges never depend on it.',
    },
  },
};

/** Null without REDIS_URL. */
export const FLEET_STATUS_SCHEMA: SchemaObject = {
  type: ['object', 'null'],
  required: ['replicaId', 'namespace', 'heartbeatMs', 'checkedAgoMs', 'namespaceMismatch', 'members'],
  properties: {
    replicaId: { type: 'string' },
    namespace: { type: 'string' },
    heartbeatMs: {
      type: 'integer',
      description: 'REDIS_HEARTBEAT_MS: members not seen for three of them are dropped.',
    },
    checkedAgoMs: {
      type: ['integer', 'null'],
      description: 'Ms since the last heartbeat that reached Redis (the list is as of then); null before the first.',
    },
    namespaceMismatch: {
      type: 'boolean',
      description:
        'Some member has another PUBLIC_BASE_URL: it shares no cached ' +
        'entries with this replica (chainproxy_fleet_namespace_mismatch).',
    },
    members: {
      type: 'array',
      description: 'Replicas seen within their expiry, oldest start first, this one included.',
      items: MEMBER_SCHEMA,
    },
  },
};
