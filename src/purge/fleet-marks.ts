/**
 * The purge marks in Redis, for replicas that start (or reconnect) later:
 * one sorted set, `keyPrefix + 'purge'`, member `h<target>` or `s<target>`
 * (hard, soft), score the purge's time by Redis's own clock (TIME in the
 * script, less the mark's age by the purger's clock: its `at` is the purger's),
 * so no member's clock is trusted. Each purge adds its mark and trims
 * the set in one script, with the rules of the local marks (marks.ts): older
 * than the horizon dropped, beyond the cap the oldest folded into `h*` / `s*`
 * (everything before that time), the key expiring a horizon after the last
 * purge. A loading replica reads Redis's time with the marks and takes each
 * mark as that long ago by its own clock (never later than now), the way it
 * judges the entries it reads (src/redis/codec.ts). One key: no cross-slot
 * operation on Redis Cluster.
 */
import { waitReady } from '../redis/client.js';
import { guarded, type RedisGuard } from '../redis/guard.js';
import type { PurgeMark } from '../fleet/messages.js';
import { EVERYTHING } from './marks.js';

const NOW_LUA = `redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

const ADD_LUA = `${NOW_LUA}
local key = KEYS[1]
local member, age, horizon, cap = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local at, cutoff = now - age, '(' .. (now - horizon)
local cur = redis.call('ZSCORE', key, member)
if (not cur) or tonumber(cur) < at then redis.call('ZADD', key, at, member) end
redis.call('ZREMRANGEBYSCORE', key, '-inf', cutoff)
local over = redis.call('ZCARD', key) - cap
if over > 0 then
  local popped = redis.call('ZPOPMIN', key, over)
  local floor = {}
  for i = 1, #popped, 2 do
    local mode = string.sub(popped[i], 1, 1)
    local score = tonumber(popped[i + 1])
    if (not floor[mode]) or floor[mode] < score then floor[mode] = score end
  end
  for mode, score in pairs(floor) do
    local everything = mode .. '${EVERYTHING}'
    local c = redis.call('ZSCORE', key, everything)
    if (not c) or tonumber(c) < score then redis.call('ZADD', key, score, everything) end
  end
end
redis.call('PEXPIRE', key, horizon)
return redis.call('ZCARD', key)
`;

/** Redis's time, then the marks with their scores. */
const LOAD_LUA = `${NOW_LUA}
local out = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
table.insert(out, 1, tostring(now))
return out
`;

/** Longest wait for the command connection before loading the marks. */
const READY_WAIT_MS = 10_000;

export interface FleetMarksOptions {
  guard: RedisGuard;
  keyPrefix: string;
  horizonMs: number;
  /** Marks besides everything (the local cap). */
  cap: number;
  clock: () => number;
}

export class FleetMarks {
  readonly #o: FleetMarksOptions;
  readonly #key: string;

  constructor(o: FleetMarksOptions) {
    this.#o = o;
    this.#key = `${o.keyPrefix}purge`;
  }

  /** Adds `mark`, at Redis's time less its age (false: Redis did not take it). */
  async store(mark: PurgeMark): Promise<boolean> {
    const { guard, horizonMs, cap, clock } = this.#o;
    const member = (mark.soft ? 's' : 'h') + mark.target;
    const age = clock() - mark.at;
    const n = await guarded(guard, 'set', () => guard.client.eval(ADD_LUA, 1, this.#key, member, age, horizonMs, cap));
    return n !== undefined;
  }

  /**
   * Every mark held (undefined: Redis did not answer). Waits for
   * the command connection (it may be ready after the bus's).
   */
  async load(): Promise<PurgeMark[] | undefined> {
    if (!(await waitReady(this.#o.guard.client, READY_WAIT_MS))) return undefined;
    const reply = await guarded(this.#o.guard, 'get', () => this.#o.guard.client.eval(LOAD_LUA, 1, this.#key));
    if (!Array.isArray(reply) || reply.length === 0) return undefined;
    const now = this.#o.clock();
    const redisNow = Number(reply[0]);
    const out: PurgeMark[] = [];
    for (let i = 1; i + 1 < reply.length; i += 2) {
      const member = String(reply[i]);
      const at = Number(reply[i + 1]);
      const mode = member[0];
      if ((mode !== 'h' && mode !== 's') || member.length < 2 || !Number.isSafeInteger(at)) continue;
      out.push({ target: member.slice(1), soft: mode === 's', at: Math.min(now, now - (redisNow - at)) });
    }
    return out;
  }

  /** Deletes a Redis key; the number deleted (undefined: Redis did not answer). */
  async delete(redisKey: string): Promise<number | undefined> {
    return guarded(this.#o.guard, 'delete', () => this.#o.guard.client.del(redisKey));
  }
}
