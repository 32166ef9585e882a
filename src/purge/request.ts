/**
 * A purge request's query: exactly one of `key` (a request as a client sends
 * it, `/tx/detail?hash=…`, percent-encoded; canonicalized like a client's, so
 * any spelling of it names the one cache key), `tag` (`address:<id>`,
 * `contract:<id>`, `token:<name>`, `height:<n>`, `prefix:/<path>` for
 * passthrough answers) or `all=true`; `soft=true`
 * serves what it purged stale while it is fetched again. Anything else is a
 * 400 naming the parameter.
 */
import type { Catalogue } from '../catalogue/index.js';
import { canonicalize } from '../catalogue/canonicalize.js';
import { echo, invalidMessage, P } from '../endpoints/params.js';
import type { ParamLimits, ParamSpec } from '../endpoints/types.js';
import { ProxyError, toProxyError } from '../errors/catalog.js';
import { txDetail } from '../endpoints/tx-detail.js';
import { tagOfAddress, tagOfToken } from '../invalidation/tags.js';
import { tagOfHeight } from './entry-tags.js';
import { EVERYTHING } from './marks.js';
import { isPassKey, PREFIX_TAG, prefixTagOf } from '../passthrough/purge-tags.js';

export type PurgeKind = 'key' | 'tag' | 'all';

export interface PurgeRequest {
  kind: PurgeKind;
  /** A cache key, a tag, or EVERYTHING. */
  target: string;
  soft: boolean;
}

const NAMES = ['key', 'tag', 'all', 'soft'] as const;
const TAG_EXPECTED = 'address:<address>, contract:<address>, token:<name>, height:<n> or prefix:/<path>';
const TAG_KINDS: Record<string, { spec: ParamSpec; tag: (v: string) => string }> = {
  address: { spec: P.address, tag: tagOfAddress },
  contract: { spec: P.address, tag: tagOfAddress },
  token: { spec: P.token, tag: tagOfToken },
  height: { spec: P.blockHeight, tag: tagOfHeight },
};

function flag(name: string, raw: string): boolean {
  const v = raw.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new ProxyError('BAD_PARAMETER', invalidMessage(name, 'true or false', raw));
}

/** The cache key a client request names (`tx/detail?hash=…`, with or without `/` or scheme and host). */
function keyOf(raw: string, catalogue: Catalogue, limits: ParamLimits, passKey: PassKeyOf | null): string {
  const bare = raw.replace(/^https?:\/\/[^/?#]*/i, '');
  const q = bare.indexOf('?');
  const path = q < 0 ? bare : bare.slice(0, q);
  const passthrough = passKey?.(path, q < 0 ? '' : bare.slice(q + 1)) ?? null;
  if (passthrough !== null) return passthrough;
  const endpoint = catalogue.match(path.startsWith('/') ? path : `/${path}`);
  if (endpoint === undefined)
    throw new ProxyError(
      'BAD_PARAMETER',
      invalidMessage('key', `an API request such as ${txDetail.path}?hash=… (percent-encoded)`, raw),
    );
  try {
    return canonicalize(endpoint, q < 0 ? '' : bare.slice(q + 1), limits).key;
  } catch (err) {
    throw new ProxyError('BAD_PARAMETER', `invalid parameter key: ${toProxyError(err).message}`);
  }
}

function tagOf(raw: string, limits: ParamLimits): string {
  if (raw.startsWith(PREFIX_TAG)) {
    const tag = prefixTagOf(raw);
    if (tag === null) throw new ProxyError('BAD_PARAMETER', invalidMessage('tag', 'prefix:/<path>', raw));
    return tag;
  }
  const colon = raw.indexOf(':');
  const kind = colon < 0 ? undefined : TAG_KINDS[raw.slice(0, colon)];
  if (kind === undefined) throw new ProxyError('BAD_PARAMETER', invalidMessage('tag', TAG_EXPECTED, raw));
  const r = kind.spec.parse(raw.slice(colon + 1), limits);
  if (!r.ok)
    throw new ProxyError('BAD_PARAMETER', invalidMessage('tag', `${raw.slice(0, colon)}:<${r.expected}>`, raw));
  return kind.tag(r.value);
}

/** The passthrough cache key of a path and query (null: not a passthrough path). */
export type PassKeyOf = (path: string, query: string) => string | null;

export function parsePurge(
  rawQuery: string,
  catalogue: Catalogue,
  limits: ParamLimits,
  passKey: PassKeyOf | null = null,
): PurgeRequest {
  const given = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(rawQuery)) {
    if (!(NAMES as readonly string[]).includes(name)) {
      throw new ProxyError(
        'BAD_PARAMETER',
        `invalid parameter ${echo(name)}: expected only ${NAMES.join(', ')} (percent-encode the key's own query)`,
      );
    }
    if (given.has(name)) throw new ProxyError('DUPLICATE_PARAMETER', `duplicated parameter ${name}: give it once`);
    given.set(name, value);
  }
  const chosen = (['key', 'tag', 'all'] as const).filter((n) => given.has(n));
  if (chosen.length === 0)
    throw new ProxyError('MISSING_PARAMETER', 'missing parameter key, tag or all: say what to purge');
  if (chosen.length > 1)
    throw new ProxyError(
      'BAD_PARAMETER',
      `invalid parameter ${chosen[1]}: give one of key, tag or all, not ${chosen.join(' and ')}`,
    );
  const soft = given.has('soft') ? flag('soft', given.get('soft')!) : false;
  const kind = chosen[0]!;
  const raw = given.get(kind)!;
  if (kind === 'all') {
    if (!flag('all', raw)) throw new ProxyError('BAD_PARAMETER', invalidMessage('all', 'true', raw));
    return { kind, target: EVERYTHING, soft };
  }
  return { kind, target: kind === 'key' ? keyOf(raw, catalogue, limits, passKey) : tagOf(raw, limits), soft };
}

/** The kind of a mark's target. */
export function kindOf(target: string): PurgeKind {
  return target === EVERYTHING ? 'all' : isPassKey(target) || !target.includes(':') ? 'key' : 'tag';
}
