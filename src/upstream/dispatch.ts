/**
 * The request path is composed like undici's `Dispatcher.compose`: a base
 * dispatch (pick an upstream, run one attempt) wrapped by layers (hedge, then
 * retry). Layers share one Plan per client request: the attempt budget, the
 * upstreams already tried, and the deadline.
 */
import { ProxyError } from '../errors/catalog.js';
import type { Upstream } from './upstream.js';
import { selectUpstream, type SelectOptions } from './select.js';
import type { UpstreamRequest, UpstreamResponse } from './types.js';

export interface Plan {
  readonly req: UpstreamRequest;
  /** Upstream names in launch order (the last one is the attempt just started). */
  readonly tried: string[];
  readonly maxAttempts: number;
  /** performance.now() value past which no attempt starts. */
  readonly deadlineAt: number;
  /** Aborts every attempt of this request (client gone or total deadline). */
  readonly signal: AbortSignal;
}

interface DispatchHints {
  /** A hedge: only an untried, fresh upstream will do (else reject without launching). */
  hedge?: boolean;
  /** A confirmation of a negative answer: only an untried, healthy, fresh upstream will do. */
  confirm?: boolean;
  /** A ballot of a quorum vote: same rule as `confirm` (an untried, healthy, fresh upstream, not sitting out). */
  vote?: boolean;
}

export type Dispatch = (plan: Plan, signal: AbortSignal, hints?: DispatchHints) => Promise<UpstreamResponse>;
export type Layer = (next: Dispatch) => Dispatch;

/** composeDispatch(base, a, b) = b(a(base)): the last layer is the outermost. */
export function composeDispatch(base: Dispatch, ...layers: Layer[]): Dispatch {
  return layers.reduce<Dispatch>((next, layer) => layer(next), base);
}

export function budgetLeft(plan: Plan): boolean {
  return plan.tried.length < plan.maxAttempts && performance.now() < plan.deadlineAt && !plan.signal.aborted;
}

export interface BaseDispatchOptions {
  upstreams: () => readonly Upstream[];
  selectOptions: (plan: Plan) => Omit<SelectOptions, 'tried' | 'untriedOnly' | 'strict'>;
}

/**
 * Picks an upstream synchronously (so a layer can read `plan.tried` right
 * after calling it) and runs one attempt there.
 */
export function baseDispatch(o: BaseDispatchOptions): Dispatch {
  return (plan, signal, hints) => {
    const confirm = hints?.confirm === true || hints?.vote === true;
    // Untried only: selection returns null rather than a lagging or uncovered upstream (select.ts).
    const sel = selectUpstream(o.upstreams(), {
      ...o.selectOptions(plan),
      tried: new Set(plan.tried),
      untriedOnly: hints?.hedge === true || confirm,
      strict: confirm,
    });
    if (sel === null) {
      return Promise.reject(
        new ProxyError('UPSTREAM_UNAVAILABLE', undefined, { detail: 'no upstream can take the request' }),
      );
    }
    // Each attempt after the first is paid for by the client that led the fetch, or not made.
    if (plan.tried.length > 0 && plan.req.extra != null && !plan.req.extra()) {
      return Promise.reject(new ProxyError('UPSTREAM_UNAVAILABLE', undefined, { detail: 'miss budget spent' }));
    }
    plan.tried.push(sel.upstream.name);
    const run = sel.upstream.run({
      path: plan.req.path,
      endpoint: plan.req.endpoint,
      accept: plan.req.accept,
      signal,
      attempt: plan.tried.length,
      gated: true,
      purpose: plan.req.purpose,
    });
    if (!sel.laggingFallback && !sel.uncovered) return run;
    return run.then((res) => ({
      ...res,
      ...(sel.laggingFallback ? { laggingFallback: true } : {}),
      ...(sel.uncovered ? { uncovered: true } : {}),
    }));
  };
}
