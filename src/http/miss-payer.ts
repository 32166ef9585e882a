/**
 * The payer of a request that went through Fastify (see src/ratelimit/payer.ts):
 * made only when the request is not a fresh hit. The client is the rate
 * limiter's (request.ip through TRUST_PROXY, IPv6 /64, or X-API-Key). A
 * refusal puts Retry-After on the reply; an API key's reply is told its
 * credits left after each charge (X-Credits-Remaining, as on every keyed answer).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MissBudget } from '../ratelimit/miss-budget.js';
import { BudgetSpent, retryAfterSeconds, type MissPayer } from '../ratelimit/payer.js';
import { UNKNOWN_API_KEY } from '../ratelimit/limiter.js';
import type { RateLimitGate } from '../ratelimit/index.js';
import { CREDITS_HEADER, requestClientKey } from './rate-limit.js';

/** The payer for a request (`page`: `pages/<name>` when it composes a page), or null: nobody pays. */
export type PayerOf = (request: FastifyRequest, reply: FastifyReply, page?: string) => MissPayer | null;

class RequestPayer implements MissPayer {
  readonly #keyed: boolean;

  constructor(
    readonly budget: MissBudget,
    readonly clientKey: string,
    readonly page: string | null,
    readonly reply: FastifyReply,
  ) {
    this.#keyed = clientKey.startsWith('key:');
    // Credits may have been charged since the rate limiter's hook announced them (a batch's items).
    this.#announce();
  }

  lead(endpoint: string): void {
    const wait = this.budget.lead(this.clientKey, this.page, endpoint);
    this.#announce();
    if (wait === 0) return;
    if (!this.reply.sent) this.reply.header('retry-after', retryAfterSeconds(wait));
    throw new BudgetSpent(wait);
  }

  extra(endpoint: string): boolean {
    const wait = this.budget.lead(this.clientKey, this.page, endpoint);
    this.#announce();
    return wait === 0;
  }

  refund(endpoint: string): void {
    this.budget.refund(this.clientKey, this.page, endpoint);
    this.#announce();
  }

  #announce(): void {
    if (this.#keyed && !this.reply.sent)
      this.reply.header(CREDITS_HEADER, String(this.budget.remaining(this.clientKey)));
  }
}

export function payerOf(gate: RateLimitGate): PayerOf {
  return (request, reply, page) => {
    const key = requestClientKey(gate.limiter, request);
    return key === UNKNOWN_API_KEY ? null : new RequestPayer(gate.budget, key, page ?? null, reply);
  };
}
