/**
 * Messages between the cluster primary and its workers (WORKERS > 1) over the
 * node:cluster IPC channel. Every message carries `cp: 1`, so messages of
 * node itself or of libraries on the same channel are told apart.
 *
 * worker → primary
 *   bus        a fleet message `{ t: kind, a: [...its arguments] }`, any kind of the table in
 *              src/fleet/messages.ts: relayed to every other worker (the sender too for an `echo` kind)
 *   acquire    a named lease (name, token, ttlMs); answered by `granted`; `wait`: a refused
 *              worker wants the holder's fill; `lend` (a flight's: the createdAt of the
 *              asker's own copy, -1 none): a newer fresh entry of a peer that filled the key
 *              recently is taken instead (a refused `granted`, then `filled` with it)
 *   renew      extends a lease still held by the token; answered by `granted`
 *   release    drops it if still the token's; `entry` (base64 of the entry codec,
 *              src/redis/codec.ts) is handed to the workers refused the lease meanwhile
 *   record     reads (`sets` absent) or adds to the primary's record of recent touched sets
 *   scrape     asks for the machine's /metrics document; answered by `scraped`
 *   rendered   this worker's own /metrics text, answering `render`
 *   lent       this worker's fresh entry of a key created after `after` (codec, base64) or null,
 *              answering `lend`
 * primary → worker
 *   bus, granted, filled (a lease released or lent: its entry or null), record (the sets),
 *   render (asks for this worker's text), scraped (the merged document), lend (asks for
 *   this worker's fresh entry of a flight's key)
 */
import type { TouchedSet } from '../chain/touched.js';
import { isKind, payloadFields, readPayload, type Kind, type MessagePayload } from '../fleet/messages.js';

/** One bus message as it travels: its kind and the listener's arguments (JSON over the IPC channel). */
export type BusMessage = { [K in Kind]: { t: K; a: MessagePayload<K> } }[Kind];

export const toIpc = <K extends Kind>(kind: K, payload: MessagePayload<K>): BusMessage =>
  ({ t: kind, a: payload }) as unknown as BusMessage;

/** A relayed message's kind and arguments, checked by its kind's row as a Redis message is; undefined: dropped. */
export function fromIpc(m: unknown): { t: Kind; a: unknown[] } | undefined {
  if (typeof m !== 'object' || m === null) return undefined;
  const { t, a } = m as { t?: unknown; a?: unknown };
  if (!isKind(t) || !Array.isArray(a)) return undefined;
  const read = readPayload(t, payloadFields(t, a as MessagePayload<Kind>));
  return read === undefined ? undefined : { t, a: read };
}

export type ToPrimary =
  | { cp: 1; t: 'bus'; m: BusMessage }
  | { cp: 1; t: 'acquire'; id: number; name: string; token: string; ttlMs: number; wait: boolean; lend: number | null }
  | { cp: 1; t: 'renew'; id: number; name: string; token: string; ttlMs: number }
  | { cp: 1; t: 'release'; name: string; token: string; entry: string | null }
  | { cp: 1; t: 'record'; id: number; set: TouchedSet | null }
  | { cp: 1; t: 'scrape'; id: number }
  | { cp: 1; t: 'rendered'; id: number; text: string }
  | { cp: 1; t: 'lent'; id: number; entry: string | null };

export type ToWorker =
  | { cp: 1; t: 'bus'; m: BusMessage }
  | { cp: 1; t: 'granted'; id: number; ok: boolean }
  | { cp: 1; t: 'filled'; name: string; entry: string | null }
  | { cp: 1; t: 'record'; id: number; sets: TouchedSet[] }
  | { cp: 1; t: 'render'; id: number }
  | { cp: 1; t: 'scraped'; id: number; text: string }
  | { cp: 1; t: 'lend'; id: number; name: string; after: number };

/** Ours (`cp: 1` and a type); the fields are trusted (both ends are this program), a bus message's are checked. */
export function isOurs<T extends { cp: 1; t: string }>(m: unknown): m is T {
  return (
    typeof m === 'object' &&
    m !== null &&
    (m as { cp?: unknown }).cp === 1 &&
    typeof (m as { t?: unknown }).t === 'string'
  );
}

/** The worker number (1..N) a worker process was started as; null in the primary or a single process. */
export const WORKER_ENV = 'CHAINPROXY_WORKER';

/** The built-in simulator's URL, started once by the primary and used by every worker. */
export const SIMULATOR_ENV = 'CHAINPROXY_WORKER_SIMULATOR';
