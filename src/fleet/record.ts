/**
 * The fleet's record of recent touched sets, so that a replica that starts
 * (or reconnects after a gap) can judge the shared tier's older entries by
 * the blocks read before it joined instead of trusting them.
 *
 * One sorted set per fleet (`keyPrefix + 'touched:record'`, a single key: no
 * cross-slot operation on Redis Cluster), score = height, member =
 * `{"at": <ms>, "set": TouchedSet}`. The replica that reads a block (the
 * lease holder) adds its set, complete or not; one script adds it, keeps the
 * newest RECORD_SETS members and renews a day's expiry, so the record never
 * grows and a fleet gone for a day leaves nothing behind. A block re-read
 * with another hash adds a second member at its height. A block nobody
 * recorded (a reader that died, Redis unreachable at that moment) is a gap:
 * the reader of the record uses only what lies above the newest gap. A
 * rebase (the chain going back) removes the sets above the new head.
 * Redis failure never blocks: `add` is lost, `read` answers null.
 */
import type { RedisConfig } from '../config/types.js';
import type { TouchedSet } from '../chain/touched.js';
import { noopMetrics, type Metrics } from '../metrics/types.js';
import { Breaker } from '../common/breaker.js';
import type { RedisClient } from '../redis/client.js';
import { guarded, type RedisGuard } from '../redis/guard.js';
import { isTouched } from './messages.js';

/** Sets kept: about 21 min of 5 s blocks, an hour of 15 s ones. */
const RECORD_SETS = 256;
const RECORD_TTL_MS = 24 * 60 * 60 * 1000;

const ADD_LUA = `redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[3]) + 1))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1`;

export interface FleetRecordOptions {
  client: RedisClient;
  config: RedisConfig;
  metrics?: Metrics;
  breaker?: Breaker;
  /** ms clock of the `at` stamps (orders two sets of one height). */
  clock?: () => number;
}

/** A recorded set with when it was added. */
interface Recorded {
  at: number;
  set: TouchedSet;
}

function parse(text: string): Recorded | null {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof m !== 'object' || m === null) return null;
  const o = m as Record<string, unknown>;
  return typeof o.at === 'number' && isTouched(o.set) ? { at: o.at, set: o.set } : null;
}

export class FleetRecord {
  readonly key: string;
  readonly #client: RedisClient;
  readonly #guard: RedisGuard;
  readonly #clock: () => number;

  constructor(opts: FleetRecordOptions) {
    this.key = `${opts.config.keyPrefix}touched:record`;
    this.#client = opts.client;
    const breaker =
      opts.breaker ?? new Breaker({ failures: opts.config.breakerFailures, cooldownMs: opts.config.breakerCooldownMs });
    this.#guard = {
      client: opts.client,
      breaker,
      timeoutMs: opts.config.commandTimeoutMs,
      metrics: opts.metrics ?? noopMetrics,
    };
    this.#clock = opts.clock ?? Date.now;
  }

  /** Records a block's set (lost when Redis is unavailable). */
  async add(set: TouchedSet): Promise<void> {
    const member = JSON.stringify({ at: this.#clock(), set });
    await guarded(this.#guard, 'set', () =>
      this.#client.eval(ADD_LUA, 1, this.key, set.height, member, RECORD_SETS, RECORD_TTL_MS),
    );
  }

  /**
   * The chain went back to `height` (a rebase): the sets above it are of
   * blocks no longer believed, and would outrank the new ones (lost when Redis is unavailable).
   */
  async forgetAbove(height: number): Promise<void> {
    await guarded(this.#guard, 'set', () => this.#client.zremrangebyscore(this.key, `(${height}`, '+inf'));
  }

  /** The recorded sets by height (two of one height in the order they were added); null: Redis unavailable. */
  async read(): Promise<TouchedSet[] | null> {
    const members = await guarded(this.#guard, 'get', () => this.#client.zrange(this.key, 0, -1));
    if (members === undefined) return null;
    const out: Recorded[] = [];
    for (const m of members) {
      const r = parse(m);
      if (r !== null) out.push(r);
    }
    out.sort((a, b) => a.set.height - b.set.height || a.at - b.at);
    return out.map((r) => r.set);
  }
}
