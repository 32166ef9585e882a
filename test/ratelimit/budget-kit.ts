/**
 * A replica with the limiter and miss budget on, in front of a fake upstream
 * serving the recorded answers (distinct cold keys: `/holders?page=N`), with
 * a fake clock and TRUST_PROXY set so each test picks its client addresses.
 */
import { type ConfigPatch } from '../helpers/proxy.js';
import { fakeClock } from '../helpers/clock.js';
import { get, type Got } from '../helpers/replica.js';
import { startLimitedReplica, type LimitedReplica } from './kit.js';

export type Clock = ReturnType<typeof fakeClock>;

export async function budgetReplica(
  upstream: string,
  patch: ConfigPatch,
): Promise<{ r: LimitedReplica; clock: Clock }> {
  const clock = fakeClock();
  const r = await startLimitedReplica(
    [upstream],
    { trustProxy: ['127.0.0.1'], ...patch, rateLimit: { max: 1000, windowMs: 60_000, ...patch.rateLimit } },
    clock.now,
  );
  return { r, clock };
}

/** Request headers of a client: its address (through TRUST_PROXY) and, optionally, an API key. */
export const client = (ip: string, key?: string): Record<string, string> => ({
  'x-forwarded-for': ip,
  ...(key !== undefined ? { 'x-api-key': key } : {}),
});

/** A cold key per `n`. */
export const cold = (n: number): string => `/holders?page=${n}&page_size=2`;

/** The envelope code of an answer. */
export const codeOf = (g: Got): number => (JSON.parse(g.text) as { code: number }).code;

export { get };
