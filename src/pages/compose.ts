/**
 * Composition of one page: resolve the parts, pin head-relative parts to one
 * head, then splice each part's `data` bytes into `{code, msg, data, meta}`.
 *
 * Head consistency: the page's head is the best head once its parts are in.
 * A head-relative part (a head-invalidated entry) fetched at an older head is
 * resolved once more (the pipeline refetches it, being stale at that head);
 * if it is still older, or a head part (`reportsHead`) shows a lower height, the part
 * is marked `behind_head` in meta.
 */
import { isFinalContent, termsOfEntry, type PageLimit } from '../cache/lifetime.js';
import type { CacheEntry, Composed, PartSummary } from '../cache/types.js';
import type { Stamp } from '../transform/stamps.js';
import type { ChainView } from '../chain/types.js';
import { ProxyError } from '../errors/catalog.js';
import { unpaid } from '../ratelimit/payer.js';
import { member, numberAt } from '../transform/json-scan.js';
import { pageEntry } from './entry.js';
import {
  fetchPart,
  fromProxyError,
  resolveParts,
  succeeded,
  type PartDeps,
  type PartError,
  type PartOutcome,
} from './parts.js';
import type { CompiledPage } from '../page-table/plan.js';

export interface ComposeDeps extends PartDeps {
  chain: ChainView;
}

export type Composition =
  | { ok: true; entry: CacheEntry; composed: Composed; outcomes: PartOutcome[] }
  | { ok: false; error: PartError; failedPart: string; outcomes: PartOutcome[] };

/** Final content (the lifetime module's one test): a final block, its transactions, a tx in it. */
function isFinalPart(o: PartOutcome): boolean {
  const e = o.res?.entry;
  const ep = o.part.endpoint;
  return e !== undefined && isFinalContent(termsOfEntry(e), ep.policy, ep.module?.finalCapable === true);
}

/** The part is the chain head itself (its module `reportsHead`). */
function isHead(o: PartOutcome): boolean {
  return o.part.endpoint.module?.reportsHead === true;
}

/** Moves with the head: a head-invalidated entry or the head itself (a tag-kept part lends the page its tags). */
function headRelative(o: PartOutcome): boolean {
  return o.res !== null && (o.res.entry.headDependent || isHead(o));
}

function maxHeight(o: PartOutcome): number | null {
  if (!isHead(o) || o.data === null || o.res === null) return null;
  const body = o.res.entry.body;
  const r = body[o.data.start] === 0x7b ? member(body, o.data.start, 'height') : null;
  const h = r === null ? null : numberAt(body, r);
  return h === null ? null : Math.trunc(h);
}

function behind(o: PartOutcome, head: number | null): boolean {
  if (head === null || o.res === null) return false;
  if (isHead(o)) {
    const h = maxHeight(o);
    return h !== null && h < head;
  }
  return o.res.entry.headDependent && o.res.entry.head !== null && o.res.entry.head < head;
}

async function pinToHead(outcomes: PartOutcome[], deps: ComposeDeps): Promise<number | null> {
  const head = deps.chain.bestHead();
  await Promise.all(
    outcomes.map(async (o, i) => {
      if (!succeeded(o) || o.req === null || !o.res!.entry.headDependent || !behind(o, head)) return;
      const again = await fetchPart(o.part, o.req, deps);
      outcomes[i] = succeeded(again) ? again : o;
    }),
  );
  for (const o of outcomes) o.behindHead = succeeded(o) && behind(o, head);
  return head;
}

function partMeta(o: PartOutcome, now: number): Record<string, unknown> {
  const m: Record<string, unknown> = { request: o.req?.key ?? null };
  if (o.skipped) return { ...m, status: 'skipped' };
  if (o.res !== null) {
    const e = o.res.entry;
    m['cache'] = o.res.result;
    m['age_ms'] = Math.max(0, now - e.createdAt);
    m['ttl_ms'] = Math.max(0, e.freshUntil - now);
    m['http_status'] = e.status;
    if (e.headDependent) m['head'] = e.head;
    if (isFinalPart(o)) m['final'] = true;
    if (o.res.staleReason !== null) m['stale'] = o.res.staleReason;
  }
  if (o.behindHead) m['behind_head'] = true;
  if (o.error !== null)
    return { ...m, status: 'error', error: { code: o.error.code, msg: o.error.msg, http_status: o.error.status } };
  return { ...m, status: o.res?.result === 'STALE' ? 'stale' : 'ok' };
}

function summarize(outcomes: readonly PartOutcome[]): PartSummary[] {
  return outcomes.map((o) => ({
    name: o.part.name,
    cache: o.skipped ? 'SKIPPED' : o.error !== null ? 'ERROR' : (o.res?.result ?? 'ERROR'),
  }));
}

const OPEN = Buffer.from('{"code":0,"msg":"success","data":{');

export async function composePage(
  page: CompiledPage,
  params: ReadonlyMap<string, string>,
  key: string,
  deps: ComposeDeps,
): Promise<Composition> {
  const outcomes = await resolveParts(page, params, deps);
  const failed = outcomes.find((o) => o.part.required && !succeeded(o));
  if (failed !== undefined) {
    const error =
      failed.error ??
      fromProxyError(new ProxyError('UPSTREAM_BAD_RESPONSE', `required part ${failed.part.name} could not be derived`));
    return { ok: false, error, failedPart: failed.part.name, outcomes };
  }
  const head = await pinToHead(outcomes, deps);
  const now = deps.clock();

  const chunks: Buffer[] = [OPEN];
  let size = OPEN.length;
  const stamps: Stamp[] = [];
  const entries: CacheEntry[] = [];
  const limits: PageLimit[] = [];
  let headDependent = false;
  let immutable = true;
  let first = true;
  for (const o of outcomes) {
    if (succeeded(o)) {
      const e = o.res!.entry;
      entries.push(e);
      if (o.res!.result !== 'STALE') limits.push({ kind: 'part', until: e.freshUntil });
      headDependent ||= headRelative(o);
      immutable &&= isFinalPart(o);
    } else if (!o.skipped) {
      limits.push({ kind: 'failed' });
      immutable = false;
    }
    if (o.part.internal) continue;
    const name = Buffer.from(`${first ? '' : ','}${JSON.stringify(o.part.name)}:`);
    first = false;
    chunks.push(name);
    size += name.length;
    if (o.data === null) {
      chunks.push(Buffer.from('null'));
      size += 4;
      continue;
    }
    const body = o.res!.entry.body;
    for (const s of o.res!.entry.stamps) {
      if (s.start >= o.data.start && s.end <= o.data.end)
        stamps.push({ ...s, start: size + s.start - o.data.start, end: size + s.end - o.data.start });
    }
    chunks.push(body.subarray(o.data.start, o.data.end));
    size += o.data.end - o.data.start;
  }
  chunks.push(Buffer.from('}'));
  const meta = {
    page: page.name,
    head,
    composed_at: now,
    // Parts past the client's miss budget were not fetched (each says 4292): the page is partial.
    ...(unpaid(outcomes) ? { partial: true } : {}),
    parts: Object.fromEntries(outcomes.map((o) => [o.part.name, partMeta(o, now)])),
  };
  const staleParts = outcomes.filter((o) => o.res?.result === 'STALE' && o.req !== null).map((o) => o.req!);
  if (staleParts.length > 0) limits.push({ kind: 'stale' });
  const composed: Composed = { parts: summarize(outcomes), staleParts };
  const entry = pageEntry({
    key,
    data: Buffer.concat(chunks),
    stamps,
    meta: Buffer.from(`,"meta":${JSON.stringify(meta)}}`),
    now,
    limits,
    head,
    headDependent,
    immutable: immutable && staleParts.length === 0,
    entries,
    composed,
  });
  return { ok: true, entry, composed, outcomes };
}
