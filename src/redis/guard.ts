/**
 * One Redis command under the tier's circuit breaker and a deadline. Every
 * tier operation (store, lease) goes through here: while the breaker is open,
 * or on any error or timeout, the result is undefined (counted as a tier
 * error) and nothing is thrown or waited for beyond the deadline.
 */
import type { Breaker, Permit } from '../common/breaker.js';
import type { Metrics, TierOp } from '../metrics/types.js';
import { isReady, type RedisClient } from './client.js';

class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
}

/** Rejects after ms; the timer never keeps the process alive. */
function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlineError(`redis command exceeded ${ms} ms`)), ms);
    timer.unref();
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

export interface RedisGuard {
  client: RedisClient;
  breaker: Breaker;
  timeoutMs: number;
  metrics: Metrics;
}

export async function guarded<T>(
  g: RedisGuard,
  op: TierOp,
  command: () => Promise<T>,
  permit: Permit | null = g.breaker.tryAcquire(),
): Promise<T | undefined> {
  if (permit === null) return undefined;
  try {
    if (!isReady(g.client)) throw new Error('redis not connected');
    const value = await withDeadline(command(), g.timeoutMs + 20);
    g.breaker.success(permit);
    return value;
  } catch {
    g.breaker.failure(permit);
    g.metrics.tierError('redis', op);
    return undefined;
  }
}
