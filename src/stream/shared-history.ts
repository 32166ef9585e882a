/**
 * The head stream's resume history shared by the fleet (with Redis), so a
 * client resumes with Last-Event-ID on any replica: one Redis Stream per fleet
 * (`<prefix><namespace>stream:heads`, a single key: no cross-slot operation on
 * Redis Cluster). Event ids are block heights, the same on every replica.
 *
 * Every replica that makes head events (one that has had a subscriber)
 * appends them; one script adds an event unless an event of its height is
 * among the newest entries since the last rebase below it (the first replica
 * to make a height wins), adds a rebase only when an event above it is recorded,
 * and bounds the stream by length (STREAM_HISTORY, `MAXLEN ~`) and age
 * (STREAM_HISTORY_MAX_AGE_MS, `MINID ~` from the Redis server's clock), with a
 * day's expiry. A replica reads it only for a resume point its own history
 * does not reach. Redis failure never blocks: a write is lost, a read answers
 * null (the replica's own history is used).
 */
import type { RedisConfig } from '../config/types.js';
import { Breaker } from '../common/breaker.js';
import { noopMetrics } from '../metrics/types.js';
import type { RedisClient } from '../redis/client.js';
import { guarded, type RedisGuard } from '../redis/guard.js';
import { EventHistory, type StreamEvent } from './history.js';

/** Newest entries a write looks through for its height. */
const WINDOW = 32;
const TTL_MS = 24 * 60 * 60 * 1000;

// KEYS[1] the stream; ARGV: kind (e event, r rebase), height, frame (event) or from (rebase), maxlen, max age, ttl.
const APPEND_LUA = `local h = tonumber(ARGV[2])
local recent = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', ${WINDOW})
if ARGV[1] == 'e' then
  for _, e in ipairs(recent) do
    local eh = tonumber(e[2][2])
    if e[2][4] == 'r' then
      if eh < h then break end
    elseif eh == h then return 0 end
  end
  if #recent == ${WINDOW} and h < tonumber(recent[${WINDOW}][2][2]) then return 0 end
else
  local above = false
  for _, e in ipairs(recent) do
    local eh = tonumber(e[2][2])
    if e[2][4] == 'r' and eh <= h then break end
    if e[2][4] == 'e' and eh > h then above = true break end
  end
  if not above then return 0 end
end
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[4], '*', 'h', ARGV[2], 'k', ARGV[1], 'v', ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('XTRIM', KEYS[1], 'MINID', '~', tostring(now - tonumber(ARGV[5])))
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1`;

/** One entry of the shared stream: its fields in the order the script writes them. */
export type SharedEntry = readonly string[];

/**
 * The history the shared entries (oldest first) describe: per height the event
 * recorded last since any rebase below it, the rebases remembered.
 */
export function historyOf(entries: readonly SharedEntry[]): EventHistory {
  const events = new Map<number, Buffer>();
  const rebases: { height: number; from: number }[] = [];
  for (const f of entries) {
    const height = Number(f[1]);
    const value = f[5] ?? '';
    if (!Number.isSafeInteger(height)) continue;
    if (f[3] === 'r') {
      for (const h of events.keys()) if (h > height) events.delete(h);
      rebases.push({ height, from: Number(value) });
    } else if (!events.has(height)) events.set(height, Buffer.from(value));
  }
  const heights = [...events.keys()].sort((a, b) => a - b);
  const history = new EventHistory(Math.max(1, heights.length));
  for (const h of heights) history.push({ height: h, frame: events.get(h)! });
  for (const r of rebases) history.rebases.push(r.height, r.from);
  return history;
}

/** Whether `local` reaches back to `after` (a resume from there needs nothing older). */
export function reaches(local: EventHistory, after: number): boolean {
  const oldest = local.oldest();
  return oldest !== undefined && after >= oldest.height - 1;
}

/** The shared history with this replica's newer events (and its rebases) after it. */
export function merged(shared: EventHistory, local: EventHistory): EventHistory {
  const top = shared.latest()?.height ?? -1;
  const own = local.after(top).filter((e) => e.marker !== true);
  const out = new EventHistory(Math.max(1, shared.after(-1).length + own.length));
  for (const e of shared.after(-1)) out.push(e);
  for (const e of own) out.push(e);
  for (const r of [...shared.rebases.all(), ...local.rebases.all()]) out.rebases.push(r.height, r.from);
  return out;
}

export interface SharedHistoryOptions {
  client: RedisClient;
  config: RedisConfig;
  /** The fleet's namespace ('' when shared by every replica). */
  namespace: string;
  /** Events kept (STREAM_HISTORY). */
  length: number;
  /** Age past which events leave (STREAM_HISTORY_MAX_AGE_MS). */
  maxAgeMs: number;
}

export class SharedHeadHistory {
  readonly key: string;
  readonly #client: RedisClient;
  readonly #guard: RedisGuard;
  readonly #length: number;
  readonly #maxAgeMs: number;

  constructor(o: SharedHistoryOptions) {
    this.key = `${o.config.keyPrefix}${o.namespace}stream:heads`;
    this.#client = o.client;
    const breaker = new Breaker({ failures: o.config.breakerFailures, cooldownMs: o.config.breakerCooldownMs });
    this.#guard = { client: o.client, breaker, timeoutMs: o.config.commandTimeoutMs, metrics: noopMetrics };
    this.#length = o.length;
    this.#maxAgeMs = o.maxAgeMs;
  }

  /** Records an event this replica made (markers are this replica's own: not shared). */
  append(e: StreamEvent): void {
    if (e.marker === true) return;
    void this.#write('e', e.height, e.frame.toString('utf8'));
  }

  /** Records that events above `height` (up to `from`) are no longer believed. */
  rebase(height: number, from: number): void {
    void this.#write('r', height, String(from));
  }

  #write(kind: 'e' | 'r', height: number, value: string): Promise<unknown> {
    return guarded(this.#guard, 'set', () =>
      this.#client.eval(APPEND_LUA, 1, this.key, kind, height, value, this.#length, this.#maxAgeMs, TTL_MS),
    );
  }

  /**
   * The shared history as far as a resume after `after` needs (the newest
   * entries down to it, with some room for rebases), at a believed head of
   * `head`; null when Redis is unavailable.
   */
  async read(after: number, head: number | null): Promise<EventHistory | null> {
    const want = head === null ? this.#length : Math.min(this.#length, Math.max(0, head - after) + WINDOW);
    const rows = await guarded(this.#guard, 'get', () =>
      this.#client.xrevrange(this.key, '+', '-', 'COUNT', Math.max(1, want)),
    );
    if (rows === undefined) return null;
    return historyOf(rows.map(([, fields]) => fields).reverse());
  }
}
