/**
 * What replicas of a fleet tell each other, whatever carries it (Redis
 * pub/sub: bus.ts; the cluster primary over IPC: src/cluster/protocol.ts).
 *
 * One table, `KINDS`, keyed by the message's kind: each row names the
 * arguments a listener of that kind receives (`bus.on(kind, …)`), what
 * `bus.publish(kind, …)` takes, their JSON fields in a Redis message, the
 * check of a received message, and an example (the wire shape, which
 * test/fleet/messages.unit.test.ts sends through both transports and
 * `npm run docs` shows in docs/architecture.md). A new kind is one row here
 * plus its publisher and listener where the work is.
 * The JSON of a kind must not change: during a rolling restart replicas of
 * two versions read each other's messages (one that does not know a kind
 * drops it). A new optional field is allowed: an older replica ignores it.
 */
import type { PendingTouched, TouchedSet } from '../chain/touched.js';

/**
 * One purge as the fleet shares it (src/purge/ makes and applies it): `at` is the purging replica's clock; a
 * replica that hears it takes its own time of hearing instead (src/purge/marks.ts `heardAt`).
 */
export interface PurgeMark {
  target: string;
  soft: boolean;
  at: number;
}

/** One upstream's head as the leader's last probe saw it (id: a digest of its URL, the same on every replica). */
export interface UpstreamHead {
  id: string;
  head: number | null;
  ok: boolean;
  /** Ms since that probe answered (or failed), when the message was sent. */
  ageMs: number;
  /**
   * The body of that probe's answer (the head endpoint's upstream bytes), so followers serve the head the leader does.
   */
  answer?: string;
}

/**
 * The leader's pending-pool poll: read or not, whether what lists the pool is stale, the newly seen transactions,
 * and every transaction in the pool now (whose parties a reader published when it first saw it; absent from
 * older replicas).
 */
export type PoolState =
  { known: false } | { known: true; stale: boolean; pending: PendingTouched; pool?: readonly string[] };

/** A received Redis message's fields (besides `v`, `from`, `t`). */
type Fields = Record<string, unknown>;

interface Row<A extends unknown[]> {
  /** What it says, from whom to whom, and the file that publishes and hears it (shown in docs/architecture.md). */
  doc: string;
  /** The arguments → the fields of a Redis message. */
  fields(...a: A): Fields;
  /** A received message's fields → the arguments; undefined when malformed (the message is dropped). */
  read(o: Fields): A | undefined;
  /** Delivered to its sender too (else only to the other replicas). */
  echo: boolean;
  /** One message of this kind: the docs show it, the round-trip test sends it. */
  example: A;
}

const row = <A extends unknown[]>(r: Row<A>): Row<A> => r;

/** Longest probe answer a 'heads' message may carry (a head answer is about 100 bytes). */
const MAX_ANSWER = 16 * 1024;

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isAnswer = (a: unknown): boolean => a === undefined || (typeof a === 'string' && a.length <= MAX_ANSWER);

const isHead = (h: unknown): boolean =>
  isObject(h) &&
  typeof h.id === 'string' &&
  typeof h.ok === 'boolean' &&
  Number.isFinite(h.ageMs) &&
  isAnswer(h.answer) &&
  (h.head === null || Number.isSafeInteger(h.head));

const isHeads = (v: unknown): v is UpstreamHead[] => Array.isArray(v) && v.every(isHead);

/** Most block intervals a 'heads' message may carry. */
const MAX_INTERVALS = 64;

const isIntervals = (v: unknown): v is number[] =>
  Array.isArray(v) && v.length <= MAX_INTERVALS && v.every((x) => typeof x === 'number' && Number.isFinite(x) && x > 0);

const isMark = (v: unknown): v is PurgeMark =>
  isObject(v) && typeof v.target === 'string' && typeof v.soft === 'boolean' && Number.isSafeInteger(v.at);

/** A touched set of the current shape (a replica on an older version sends none: dropped). */
export function isTouched(v: unknown): v is TouchedSet {
  return (
    isObject(v) &&
    Number.isSafeInteger(v.height) &&
    typeof v.blockHash === 'string' &&
    strings(v.addresses) &&
    strings(v.contracts) &&
    strings(v.deployed) &&
    (v.day === null || Number.isSafeInteger(v.day)) &&
    strings(v.tokens) &&
    (v.left === undefined || strings(v.left)) &&
    typeof v.complete === 'boolean'
  );
}

const isPending = (v: unknown): v is PendingTouched =>
  isObject(v) && strings(v.hashes) && strings(v.addresses) && strings(v.contracts);

const none: PendingTouched = { hashes: [], addresses: [], contracts: [] };

export const KINDS = {
  head: row<[height: number, final: boolean]>({
    doc: "A replica's new chain head or final height (src/fleet/tracker-bus.ts), to the others.",
    fields: (height, final) => ({ height, final }),
    read: (o) =>
      Number.isSafeInteger(o.height) && typeof o.final === 'boolean' ? [o.height as number, o.final] : undefined,
    echo: false,
    example: [123, false],
  }),
  filled: row<[key: string]>({
    doc: "A flight's leader is done: its fill is in the shared tier (src/fleet/lease.ts; Redis only); to all.",
    fields: (key) => ({ key }),
    read: (o) => (typeof o.key === 'string' ? [o.key] : undefined),
    echo: true,
    example: ['b1:/v1/blocks/1'],
  }),
  touched: row<[set: TouchedSet, pending: PendingTouched]>({
    doc: "A block's touched set and the pool's, from the replica that read the block (src/invalidation/build.ts).",
    fields: (set, pending) => ({ set, pending }),
    read: (o) => (isTouched(o.set) && isPending(o.pending) ? [o.set, o.pending] : undefined),
    echo: false,
    example: [
      {
        height: 7,
        blockHash: '0xab',
        addresses: ['0x1'],
        contracts: [],
        deployed: [],
        day: 20_000,
        tokens: [],
        complete: true,
      },
      { hashes: ['0x2'], addresses: [], contracts: [] },
    ],
  }),
  purge: row<[mark: PurgeMark]>({
    doc: "An operator's purge (src/purge/purger.ts), to the others.",
    fields: (mark) => ({ mark }),
    read: (o) => (isMark(o.mark) ? [o.mark] : undefined),
    echo: false,
    example: [{ target: '/v1/blocks/*', soft: true, at: 1_700_000_000_000 }],
  }),
  heads: row<[lease: string, heads: UpstreamHead[], intervals?: number[]]>({
    doc:
      "The leader's per-upstream probe results, also its heartbeat (src/fleet/duty.ts), to its followers; " +
      'optionally its recent block intervals in ms, which a replica that has not learned them yet takes.',
    fields: (lease, heads, intervals) => (intervals === undefined ? { lease, heads } : { lease, heads, intervals }),
    read: (o) => {
      if (typeof o.lease !== 'string' || !isHeads(o.heads)) return undefined;
      // Malformed intervals are left out: the heads still count.
      return isIntervals(o.intervals) ? [o.lease, o.heads, o.intervals] : [o.lease, o.heads];
    },
    echo: false,
    example: ['leader:b1:', [{ id: 'u1', head: 12, ok: true, ageMs: 40, answer: '{"height":12}' }], [2000, 2010]],
  }),
  pool: row<[lease: string, state: PoolState]>({
    doc: "The leader's pending-pool poll, its state spread into the Redis message (src/fleet/duty.ts).",
    fields: (lease, state) => ({ lease, ...state }),
    read: (o) => {
      if (typeof o.lease !== 'string') return undefined;
      if (o.known === false) return [o.lease, { known: false }];
      const known = o.known === true && typeof o.stale === 'boolean' && isPending(o.pending);
      if (!known) return undefined;
      const state = { known: true as const, stale: o.stale as boolean, pending: o.pending as PendingTouched };
      // A malformed pool list is left out: the poll still counts.
      return [o.lease, strings(o.pool) ? { ...state, pool: o.pool } : state];
    },
    echo: false,
    example: ['leader:b1:', { known: true, stale: false, pending: none, pool: ['0x2'] }],
  }),
  entries: row<[lease: string, entries: string[]]>({
    doc: "The leader's refreshed entries of one round, base64 of the entry codec (src/fleet/duty.ts).",
    fields: (lease, entries) => ({ lease, entries }),
    read: (o) => (typeof o.lease === 'string' && strings(o.entries) ? [o.lease, o.entries] : undefined),
    echo: false,
    example: ['leader:b1:', ['ZW50cnk=']],
  }),
};

export type Kind = keyof typeof KINDS;

/** A kind's arguments: what its listeners receive and what publishing it takes. */
export type MessagePayload<K extends Kind> = (typeof KINDS)[K] extends Row<infer A> ? A : never;

/** The bus's events: one per kind, and `subscribed`, which a transport raises itself (it is, again, subscribed). */
export type FleetBusEvents = { [K in Kind]: MessagePayload<K> } & { subscribed: [] };

/** Kinds are the table's keys, so `t` of a received message is one only if named there. */
export const isKind = (t: unknown): t is Kind => typeof t === 'string' && Object.hasOwn(KINDS, t);

/** A received message's fields → its kind's arguments (the one check both transports use). */
export const readPayload = <K extends Kind>(kind: K, o: Fields): MessagePayload<K> | undefined =>
  (KINDS[kind] as unknown as Row<MessagePayload<K>>).read(o);

/** A kind's arguments → its Redis fields. */
export const payloadFields = <K extends Kind>(kind: K, a: MessagePayload<K>): Fields =>
  (KINDS[kind] as unknown as Row<MessagePayload<K>>).fields(...a);
