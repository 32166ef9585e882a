/**
 * The answer of POST /purge: 200 with what was purged when the purge reached
 * everything it should; otherwise (Redis configured and not taking it, or
 * this machine's other workers not told) the 503 envelope PURGE_NOT_PROPAGATED,
 * its message saying what failed, its data what was done here. Without Redis
 * there is nothing to store: `reach` says how far the purge went.
 */
import { EDGE_ERRORS, envelopeBody } from '../errors/catalog.js';
import type { PurgeFailure, PurgeOutcome } from './purger.js';

/** What a failure left undone, in words; null: nothing. */
function failureWords(failure: PurgeFailure): string | null {
  if (failure === null) return null;
  if (failure === 'workers') return "this machine's other workers were not told: they keep serving what it named";
  if (!failure.stored && !failure.published)
    return (
      'Redis took neither the message nor the mark: the other replicas keep serving ' +
      'what it named; purge again once Redis is back'
    );
  if (!failure.published)
    return 'the running replicas were not told (Redis did not publish it): purge again once Redis is back';
  return 'Redis did not store the mark: replicas that start or reconnect later will not load it; purge again';
}

/** The status and envelope of a purge's outcome. */
export function purgeReply(outcome: PurgeOutcome): { status: number; body: Buffer } {
  const words = failureWords(outcome.failure);
  if (words === null) return { status: 200, body: envelopeBody(0, 'success', outcome.answer) };
  const e = EDGE_ERRORS.PURGE_NOT_PROPAGATED;
  return { status: e.status, body: envelopeBody(e.code, `${e.msg}: ${words}`, outcome.answer) };
}
