/**
 * An entry's dependency tags, computed once at store time from the
 * dependencies its endpoint module's rule says apply (`decide`, by default
 * every `dependsOn`: src/endpoints/*.ts), its request parameters and its
 * data. Only entries whose every applicable dependency is an address, a
 * contract, a token, deployments, the pending pool (while polled), the day, a
 * block's finality or a stage's end height are kept by tags; any other
 * dependency (the head, a NAX stage without its end) keeps the endpoint's own rule
 * (head invalidation, its TTL).
 */
import type { EntryDeps } from '../cache/types.js';
import type { Dependency } from '../endpoints/types.js';
import { isFinalHeight } from '../endpoints/facts.js';

export const tagOfAddress = (id: string): string => `address:${id}`;
export const tagOfToken = (name: string): string => `token:${name}`;
/** Any contract deployed (the contract and token lists). */
export const DEPLOYED = 'contract:deployed';
/** The calendar day (UTC, chain time): bumped by the first block of a day. */
export const DAY_TAG = 'day';
/** The pending pool: bumped by every block and by the pending poll when the pool changed. */
export const PENDING = 'pending';
/** One pending transaction: bumped by the block with which it left the pool (mined in it, or dropped). */
export const tagOfTx = (hash: string): string => `tx:${hash}`;
/** Whether `tag` is a transaction's (checked only after a set that did not say which left the pool). */
export const isTxTag = (tag: string): boolean => tag.startsWith('tx:');

const heightOf = (v: unknown): number | null => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
};

/**
 * Null: the entry keeps the endpoint's own rule. `final` is the chain's final
 * height: an answer about a block already final needs no finality watch.
 * `pendingPolled`: the pool is polled between blocks (else what depends on it keeps its own rule).
 */
export function entryDeps(
  dependsOn: readonly Dependency[],
  params: ReadonlyMap<string, string>,
  data: unknown,
  final: number | null,
  pendingPolled: boolean,
): EntryDeps | null {
  const tags: string[] = [];
  let watchFinal: number | null = null;
  let watchHead: number | null = null;
  let pending = false;
  let pendingTx: string | undefined;
  for (const d of dependsOn) {
    switch (d.on) {
      case 'head':
        if (d.unless === undefined || !params.has(d.unless)) return null;
        break;
      case 'address':
      case 'contract':
      case 'token':
        pushEntity(tags, d.on, params.get(d.param));
        break;
      case 'deployment':
        tags.push(DEPLOYED);
        break;
      case 'pending':
        pending = true;
        if (d.param !== undefined) pendingTx = params.get(d.param);
        break;
      case 'stage-end':
        watchHead = heightOf(fieldOf(data, d.field));
        if (watchHead === null) return null;
        break;
      case 'finality': {
        let h = heightOf('param' in d ? params.get(d.param) : fieldOf(data, d.field));
        // A block named by hash: its record's height, else the endpoint's rule stays.
        if (h === null && 'param' in d && params.has(d.param)) {
          h = d.field === undefined ? null : heightOf(fieldOf(data, d.field));
          if (h === null) return null;
        }
        if (h !== null) watchFinal = isFinalHeight(h, final) ? null : h;
        break;
      }
      case 'day':
        tags.push(DAY_TAG);
        break;
      case 'nax-stage':
        return null;
    }
  }
  if (pending) {
    if (!pendingPolled) return null;
    tags.push(pendingTx !== undefined ? tagOfTx(pendingTx) : PENDING);
  }
  if (watchHead !== null) return { tags, watchFinal, watchHead };
  if (tags.length === 0 && watchFinal === null) return null;
  return { tags, watchFinal };
}

/** An applicable `head` dependency (a plain loop: hot-key scoring runs it on every hit). */
export function dependsOnHead(dependsOn: readonly Dependency[], params: ReadonlyMap<string, string>): boolean {
  for (let i = 0; i < dependsOn.length; i++) {
    const d = dependsOn[i]!;
    if (d.on === 'head' && (d.unless === undefined || !params.has(d.unless))) return true;
  }
  return false;
}

/** The tag of the address, contract or token a parameter names (none when absent). */
function pushEntity(into: string[], on: 'address' | 'contract' | 'token', value: string | undefined): void {
  if (value !== undefined) into.push(on === 'token' ? tagOfToken(value) : tagOfAddress(value));
}

function fieldOf(data: unknown, field: string): unknown {
  return typeof data === 'object' && data !== null && !Array.isArray(data)
    ? (data as Record<string, unknown>)[field]
    : undefined;
}

/**
 * Every dependency of an answer as a tag (Cache-Tag, Surrogate-Key):
 * `head` and `nax-stage` besides the tags entries are kept by.
 */
export function headerTags(
  dependsOn: readonly Dependency[],
  params: ReadonlyMap<string, string>,
  data: unknown,
): string[] {
  const out: string[] = [];
  for (const d of dependsOn) {
    switch (d.on) {
      case 'head':
        if (d.unless === undefined || !params.has(d.unless)) out.push('head');
        break;
      case 'address':
      case 'contract':
      case 'token':
        pushEntity(out, d.on, params.get(d.param));
        break;
      case 'deployment':
        out.push(DEPLOYED);
        break;
      case 'stage-end': {
        const v = fieldOf(data, d.field);
        out.push(v === undefined || v === null ? 'nax-stage' : `stage-end:${String(v)}`);
        break;
      }
      case 'finality': {
        const v = 'param' in d ? params.get(d.param) : fieldOf(data, d.field);
        if (v !== undefined && v !== null) out.push(`finality:${String(v)}`);
        break;
      }
      default:
        out.push(d.on);
    }
  }
  return out;
}
