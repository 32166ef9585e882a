/**
 * Resolving the parts of one page through the request pipeline, in process:
 * canonicalize → resolver.hit (synchronous) or resolver.resolve (lookup,
 * single flight, upstream). Parts start as soon as what they refer to is
 * known: independent parts run in parallel, dependent parts after.
 */
import { canonicalize } from '../catalogue/canonicalize.js';
import type { CanonicalRequest } from '../catalogue/types.js';
import type { ParamLimits } from '../endpoints/types.js';
import { ProxyError, toProxyError } from '../errors/catalog.js';
import type { Resolution, Resolver } from '../pipeline/resolver.js';
import type { MissPayer } from '../ratelimit/payer.js';
import { locate, type Range } from '../transform/json-scan.js';
import type { CompiledPage, CompiledPart } from '../page-table/plan.js';
import { resolveTemplate, resolveWhen, type PartsSoFar } from '../page-table/template.js';

export interface PartOutcome {
  part: CompiledPart;
  req: CanonicalRequest | null;
  res: Resolution | null;
  /** Why the part has no data: a pipeline error, or the part's own error envelope (negative entry). */
  error: PartError | null;
  /** The part did not run: `when` false, or a field it derives from is absent. */
  skipped: boolean;
  /** Range of the entry body's `data` value (when the part succeeded). */
  data: Range | null;
  /** The head-dependent entry is older than the page's head even after one refresh. */
  behindHead: boolean;
}

/** A part's error as its direct request would answer it: status and envelope. */
export interface PartError {
  status: number;
  code: number;
  msg: string;
  body: Buffer;
}

export function fromProxyError(e: ProxyError): PartError {
  return { status: e.status, code: e.code, msg: e.message, body: e.toBody() };
}

export interface PartDeps {
  resolver: Resolver;
  limits: ParamLimits;
  clock: () => number;
  /** Charged per part that leads an upstream request (null or absent: nobody pays). */
  payer?: MissPayer | null;
}

export function succeeded(o: PartOutcome): boolean {
  return o.data !== null;
}

/** The part's own envelope (an upstream 404 kept as a negative entry), as sent to a direct request. */
function envelopeError(res: Resolution): PartError {
  let code = res.entry.status;
  let msg = 'upstream error';
  try {
    const j = JSON.parse(res.entry.body.toString('utf8')) as { code?: unknown; msg?: unknown };
    if (typeof j.code === 'number') code = j.code;
    if (typeof j.msg === 'string') msg = j.msg;
  } catch {
    // Kept generic.
  }
  return { status: res.entry.status, code, msg, body: res.entry.body };
}

export async function fetchPart(part: CompiledPart, req: CanonicalRequest, deps: PartDeps): Promise<PartOutcome> {
  const base = { part, req, skipped: false, behindHead: false };
  let res: Resolution;
  try {
    res = deps.resolver.hit(req, deps.clock()) ?? (await deps.resolver.resolve(req, undefined, deps.payer ?? null));
  } catch (e) {
    return { ...base, res: null, error: fromProxyError(toProxyError(e)), data: null };
  }
  const ok = !res.entry.negative && res.entry.status >= 200 && res.entry.status < 300;
  const data = ok ? locate(res.entry.body, ['data']) : null;
  if (data === null)
    return {
      ...base,
      res,
      error: ok ? fromProxyError(new ProxyError('UPSTREAM_BAD_RESPONSE', 'answer without data')) : envelopeError(res),
      data: null,
    };
  return { ...base, res, error: null, data };
}

function skipped(part: CompiledPart, error: PartError | null): PartOutcome {
  return { part, req: null, res: null, error, skipped: error === null, data: null, behindHead: false };
}

type Bound = { kind: 'wait' } | { kind: 'skip'; error: PartError | null } | { kind: 'run'; req: CanonicalRequest };

interface Known extends PartsSoFar {
  /** The error a failed part ended with (a part deriving from it fails with the same). */
  error(part: string): PartError | null;
}

function bind(part: CompiledPart, params: ReadonlyMap<string, string>, parts: Known, limits: ParamLimits): Bound {
  const skipFor = (failedPart: string | null): Bound => ({
    kind: 'skip',
    // Deriving from a skipped part skips too; from a failed one fails with its error.
    error: failedPart === null ? null : parts.error(failedPart),
  });
  if (part.when !== null) {
    const w = resolveWhen(part.when, params, parts);
    if (w.state === 'wait') return { kind: 'wait' };
    if (w.state === 'none') return skipFor(w.failedPart);
  }
  let query = '';
  for (const [name, alts] of part.query) {
    const r = resolveTemplate(alts, params, parts);
    if (r.state === 'wait') return { kind: 'wait' };
    if (r.state === 'none') return skipFor(r.failedPart);
    if (r.value !== null) query += `${query === '' ? '' : '&'}${name}=${encodeURIComponent(r.value)}`;
  }
  try {
    return { kind: 'run', req: canonicalize(part.endpoint, query, limits) };
  } catch (e) {
    // A value taken from another part's data that the endpoint does not accept.
    return { kind: 'skip', error: fromProxyError(toProxyError(e)) };
  }
}

/** Resolves every part of `page`; outcomes in declaration order. */
export async function resolveParts(
  page: CompiledPage,
  params: ReadonlyMap<string, string>,
  deps: PartDeps,
): Promise<PartOutcome[]> {
  const done = new Map<string, PartOutcome>();
  const parsed = new Map<string, unknown>();
  const soFar: Known = {
    has: (n) => done.has(n),
    error: (n) => done.get(n)?.error ?? null,
    failed: (n) => !succeeded(done.get(n)!),
    data: (n) => {
      if (!parsed.has(n)) {
        const o = done.get(n)!;
        parsed.set(n, JSON.parse(o.res!.entry.body.toString('utf8', o.data!.start, o.data!.end)) as unknown);
      }
      return parsed.get(n);
    },
  };
  const pending = new Set(page.parts);
  const running = new Map<string, Promise<void>>();
  for (;;) {
    let changed = true;
    while (changed) {
      changed = false;
      for (const part of pending) {
        const b = bind(part, params, soFar, deps.limits);
        if (b.kind === 'wait') continue;
        pending.delete(part);
        if (b.kind === 'skip') {
          done.set(part.name, skipped(part, b.error));
          changed = true;
        } else {
          running.set(
            part.name,
            fetchPart(part, b.req, deps).then((o) => {
              running.delete(part.name);
              done.set(part.name, o);
            }),
          );
        }
      }
    }
    if (running.size === 0) break;
    await Promise.race(running.values());
  }
  // Only a cycle (rejected at start) could leave parts pending.
  for (const part of pending)
    done.set(part.name, skipped(part, fromProxyError(new ProxyError('INTERNAL', 'unresolvable part'))));
  return page.parts.map((p) => done.get(p.name)!);
}
