/**
 * The fleet's member list: every replica writes a heartbeat to Redis and reads
 * everyone else's, so /status, the status page and the metrics show who is in
 * the fleet and whether they share one namespace (PUBLIC_BASE_URL).
 *
 * One hash per fleet, `keyPrefix + 'fleet:members'`, outside any namespace so
 * replicas with different base URLs see each other. Field = replica id, value
 * = `<lastSeen> <expiresAt> <JSON about the replica>`, both times by Redis's
 * own clock (no skew between machines). Every `heartbeatMs` one script
 * renews this replica's field (expiry three beats ahead), drops every field
 * past its expiry, renews the key's own expiry and returns Redis's time and
 * the fields left. A single key: no cross-slot operation on Redis Cluster.
 * A replica that stops cleanly removes its field; a killed one is dropped
 * by the next beat of any other replica after its expiry. The hash holds only
 * replicas seen within their expiry, and a fleet gone leaves nothing behind.
 * Redis failure never blocks: the beat is lost and the last list is kept.
 * The heartbeat has its own breaker and counts no tier error: a slow beat
 * must not open the cache tier's breaker, and its health shows in checkedAgoMs.
 *
 * Clock skew: each beat measures this replica's clock against Redis's (the
 * script's time against the middle of the round trip) and tells the fleet in
 * its entry (`clockOffsetMs`), so every member's skew from this one is the
 * difference of the two offsets, within their round trips. A member further
 * than SKEW_WARN_MS from this one is logged once (again after it came back).
 * Nothing the fleet shares depends on it (entries and purge marks are judged
 * by each reader's own clock); it tells the operator.
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { Breaker } from '../common/breaker.js';
import type { RedisConfig } from '../config/types.js';
import { noopMetrics } from '../metrics/types.js';
import { isReady, type RedisClient } from '../redis/client.js';
import { guarded, type RedisGuard } from '../redis/guard.js';

/** A member's entry lives this many heartbeats after its last beat. */
const EXPIRY_BEATS = 3;
/** A member whose clock is further than this from this replica's is logged. */
export const SKEW_WARN_MS = 1000;

const BEAT_LUA = `redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
redis.call('HSET', KEYS[1], ARGV[1], string.format('%d %d %s', now, now + ttl, ARGV[2]))
local all = redis.call('HGETALL', KEYS[1])
local out = {tostring(now)}
for i = 1, #all, 2 do
  local exp = tonumber(string.match(all[i + 1], '^%d+ (%d+) '))
  if exp == nil or exp < now then redis.call('HDEL', KEYS[1], all[i]) else out[#out + 1] = all[i + 1] end
end
redis.call('PEXPIRE', KEYS[1], ttl)
return out`;

/** What a replica says about itself. */
interface About {
  id: string;
  version: string;
  /** The Redis namespace of its PUBLIC_BASE_URL (src/fleet/connect.ts). */
  namespace: string;
  publicBaseUrl: string;
  role: string;
  host: string;
  pid: number;
  /** ms since the epoch, by the replica's clock. */
  startedAt: number;
  /** Its clock less Redis's, at its previous beat (absent: not measured yet, or an older replica). */
  clockOffsetMs?: number;
}

/** One member as /status shows it. */
export interface Member extends About {
  lastSeenAgoMs: number;
  /** This replica. */
  self: boolean;
  /** Shares this replica's namespace (so its Redis entries). */
  sameNamespace: boolean;
  /** Its clock less this replica's (ms), measured through Redis's; null when either is not known yet. */
  skewMs: number | null;
}

export interface MembersView {
  replicaId: string;
  namespace: string;
  heartbeatMs: number;
  /** Ms since the last heartbeat that reached Redis (the list is as of then); null before the first. */
  checkedAgoMs: number | null;
  /** Some member's namespace differs from this replica's: they share no entries. */
  namespaceMismatch: boolean;
  /** Oldest first (by start time), this replica included. */
  members: Member[];
}

export interface FleetMembersOptions {
  client: RedisClient;
  config: RedisConfig;
  replicaId: string;
  version: string;
  namespace: string;
  publicBaseUrl: string;
  /** The replica's role in the fleet, read at every beat; null: 'replica'. */
  role: (() => string) | null;
  clock?: () => number;
  /** Where a member's clock skew past SKEW_WARN_MS is told; absent: nowhere. */
  logger?: Logger;
}

function parse(value: string, now: number): { about: About; lastSeenAgoMs: number } | null {
  const m = /^(\d+) \d+ (.*)$/s.exec(value);
  if (m === null) return null;
  let o: unknown;
  try {
    o = JSON.parse(m[2]!);
  } catch {
    return null;
  }
  if (typeof o !== 'object' || o === null) return null;
  const a = o as Record<string, unknown>;
  const strings = ['id', 'version', 'namespace', 'publicBaseUrl', 'role', 'host'].every(
    (k) => typeof a[k] === 'string',
  );
  if (!strings || !Number.isSafeInteger(a.pid) || !Number.isSafeInteger(a.startedAt)) return null;
  if (a.clockOffsetMs !== undefined && !Number.isFinite(a.clockOffsetMs)) return null;
  return { about: a as unknown as About, lastSeenAgoMs: Math.max(0, now - Number(m[1])) };
}

export class FleetMembers {
  readonly key: string;
  readonly #o: FleetMembersOptions;
  readonly #guard: RedisGuard;
  readonly #clock: () => number;
  readonly #role: () => string;
  readonly #startedAt: number;
  #members: Member[] = [];
  #checkedAt: number | null = null;
  /** This replica's clock less Redis's at the last beat (null: none yet). */
  #offset: number | null = null;
  /** Members logged as skewed past the bound (until they come back within it). */
  readonly #skewed = new Set<string>();
  #timer: NodeJS.Timeout | null = null;

  constructor(opts: FleetMembersOptions) {
    this.key = `${opts.config.keyPrefix}fleet:members`;
    this.#o = opts;
    const breaker = new Breaker({ failures: opts.config.breakerFailures, cooldownMs: opts.config.breakerCooldownMs });
    this.#guard = { client: opts.client, breaker, timeoutMs: opts.config.commandTimeoutMs, metrics: noopMetrics };
    this.#clock = opts.clock ?? Date.now;
    this.#role = opts.role ?? (() => 'replica');
    this.#startedAt = this.#clock();
  }

  /** Beats every heartbeatMs (the timer never keeps the process alive); the owner also beats on each connect. */
  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => void this.beat(), this.#o.config.heartbeatMs);
    this.#timer.unref();
  }

  /** Writes this replica's entry and reads the list; false when Redis did not answer (not connected: not tried). */
  async beat(): Promise<boolean> {
    const o = this.#o;
    if (!isReady(o.client)) return false;
    const about: About = {
      id: o.replicaId,
      version: o.version,
      namespace: o.namespace,
      publicBaseUrl: o.publicBaseUrl,
      role: this.#role(),
      host: hostname(),
      pid: process.pid,
      startedAt: this.#startedAt,
      ...(this.#offset !== null ? { clockOffsetMs: this.#offset } : {}),
    };
    const ttl = EXPIRY_BEATS * o.config.heartbeatMs;
    const sent = this.#clock();
    const res = await guarded(this.#guard, 'set', () =>
      o.client.eval(BEAT_LUA, 1, this.key, o.replicaId, JSON.stringify(about), ttl),
    );
    if (!Array.isArray(res) || res.length === 0) return false;
    const now = Number(res[0]);
    const answered = this.#clock();
    this.#offset = Math.round((sent + answered) / 2) - now;
    const members: Member[] = [];
    for (const v of res.slice(1)) {
      const p = typeof v === 'string' ? parse(v, now) : null;
      if (p === null) continue;
      const self = p.about.id === o.replicaId;
      const theirs = self ? this.#offset : p.about.clockOffsetMs;
      members.push({
        ...p.about,
        lastSeenAgoMs: p.lastSeenAgoMs,
        self,
        sameNamespace: p.about.namespace === o.namespace,
        skewMs: theirs === undefined ? null : theirs - this.#offset,
      });
    }
    members.sort((a, b) => a.startedAt - b.startedAt || a.id.localeCompare(b.id));
    this.#members = members;
    this.#checkedAt = answered;
    this.#warnSkew(members);
    return true;
  }

  /** Logs each member newly past SKEW_WARN_MS from this replica's clock (and forgets those back within it). */
  #warnSkew(members: readonly Member[]): void {
    for (const m of members) {
      const past = m.skewMs !== null && Math.abs(m.skewMs) > SKEW_WARN_MS;
      if (!past) {
        this.#skewed.delete(m.id);
        continue;
      }
      if (this.#skewed.has(m.id)) continue;
      this.#skewed.add(m.id);
      this.#o.logger?.warn(
        { replica: m.id, host: m.host, skewMs: m.skewMs, boundMs: SKEW_WARN_MS },
        "a fleet member's clock differs from this replica's past the bound (entries and purges are judged by " +
          "each replica's own clock; keep clocks in sync with NTP)",
      );
    }
    for (const id of this.#skewed) if (!members.some((m) => m.id === id)) this.#skewed.delete(id);
  }

  view(): MembersView {
    return {
      replicaId: this.#o.replicaId,
      namespace: this.#o.namespace,
      heartbeatMs: this.#o.config.heartbeatMs,
      checkedAgoMs: this.#checkedAt === null ? null : Math.max(0, this.#clock() - this.#checkedAt),
      namespaceMismatch: this.#members.some((m) => !m.sameNamespace),
      members: this.#members,
    };
  }

  /** Stops beating and removes this replica's entry (lost when Redis is unavailable: it expires). */
  async leave(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await guarded(this.#guard, 'delete', () => this.#o.client.hdel(this.key, this.#o.replicaId));
  }
}
