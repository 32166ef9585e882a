/**
 * The purge marks in Redis, for replicas that start (or reconnect) later:
 * one sorted set, `keyPrefix + 'purge'`, member `h<target>` or `s<target>`
 * (hard, soft), score the purge's time. Each purge adds its mark and trims the
 * set in one script, with the rules of the local marks (marks.ts): older than
 * the horizon dropped, beyond the cap the oldest folded into `h*` / `s*`
 * (everything before that time), the key expiring a horizon after the last
 * purge. One key: no cross-slot operation on Redis Cluster.
 */
import { waitReady } from '../redis/client.js';
import { guarded, type RedisGuard } from '../redis/guard.js';
import type { PurgeMark } from '../fleet/messages.js';
import { EVERYTHING } from './marks.js';

const ADD_LUA = `
local key = KEYS[1]
local member, at, cutoff, horizon, cap = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], tonumber(ARGV[5])
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

  /** Adds `mark` (false: Redis did not take it). */
  async store(mark: PurgeMark): Promise<boolean> {
    const { guard, horizonMs, cap, clock } = this.#o;
    const member = (mark.soft ? 's' : 'h') + mark.target;
    const cutoff = `(${clock() - horizonMs}`;
    const n = await guarded(guard, 'set', () =>
      guard.client.eval(ADD_LUA, 1, this.#key, member, mark.at, cutoff, horizonMs, cap),
    );
    return n !== undefined;
  }

  /**
   * Every mark held (undefined: Redis did not answer). Waits for
   * the command connection (it may be ready after the bus's).
   */
  async load(): Promise<PurgeMark[] | undefined> {
    if (!(await waitReady(this.#o.guard.client, READY_WAIT_MS))) return undefined;
    const flat = await guarded(this.#o.guard, 'get', () => this.#o.guard.client.zrange(this.#key, 0, -1, 'WITHSCORES'));
    if (flat === undefined) return undefined;
    const out: PurgeMark[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const member = flat[i]!;
      const at = Number(flat[i + 1]);
      const mode = member[0];
      if ((mode !== 'h' && mode !== 's') || member.length < 2 || !Number.isSafeInteger(at)) continue;
      out.push({ target: member.slice(1), soft: mode === 's', at });
    }
    return out;
  }

  /** Deletes a Redis key; the number deleted (undefined: Redis did not answer). */
  async delete(redisKey: string): Promise<number | undefined> {
    return guarded(this.#o.guard, 'delete', () => this.#o.guard.client.del(redisKey));
  }
}
