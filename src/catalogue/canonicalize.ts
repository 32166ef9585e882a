/**
 * Raw query string → CanonicalRequest (key and upstream path), or a ProxyError.
 * Runs on every request, hits included, so it is a hand-written loop: no
 * URLSearchParams, no regular expressions, decoding only when `%` or `+` occurs.
 *
 * Rules: `+` is a space; malformed percent-encoding, control characters
 * (U+0000-U+001F, U+007F) in any name or value, and empty values are
 * BAD_PARAMETER; a known parameter given twice is DUPLICATE_PARAMETER (unknown
 * ones are dropped, duplicates included, never reaching key or upstream);
 * segments without a name (`&&`, trailing `&`) are ignored.
 */
import { ProxyError } from '../errors/catalog.js';
import { echo, invalidMessage, MISSING_PREFIX } from '../endpoints/params.js';
import type { ParamLimits, ParamSpec } from '../endpoints/types.js';
import type { CanonicalRequest, EndpointDef } from './types.js';

interface Compiled {
  /** Specs sorted by name: the key's parameter order. */
  sorted: readonly ParamSpec[];
  index: ReadonlyMap<string, number>;
}

const compiled = new WeakMap<EndpointDef, Compiled>();

function compile(endpoint: EndpointDef): Compiled {
  let c = compiled.get(endpoint);
  if (c === undefined) {
    const sorted = [...endpoint.params].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    c = { sorted, index: new Map(sorted.map((s, i) => [s.name, i])) };
    compiled.set(endpoint, c);
  }
  return c;
}

function decode(raw: string, start: number, end: number, what: string): string {
  let needs = false;
  for (let i = start; i < end; i++) {
    const c = raw.charCodeAt(i);
    if (c === 37 || c === 43) {
      needs = true;
      break;
    }
  }
  const s = raw.slice(start, end);
  if (!needs) return s;
  try {
    return decodeURIComponent(s.replaceAll('+', ' '));
  } catch {
    throw new ProxyError('BAD_PARAMETER', `invalid parameter ${what}: malformed percent-encoding in "${echo(s)}"`);
  }
}

function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

export function canonicalize(endpoint: EndpointDef, rawQuery: string, limits: ParamLimits): CanonicalRequest {
  const { sorted, index } = compile(endpoint);
  const values: (string | undefined)[] = new Array<string | undefined>(sorted.length);
  const len = rawQuery.length;
  let pos = 0;
  while (pos < len) {
    let amp = rawQuery.indexOf('&', pos);
    if (amp < 0) amp = len;
    if (amp > pos) {
      let eq = rawQuery.indexOf('=', pos);
      if (eq < 0 || eq > amp) eq = amp;
      const name = decode(rawQuery, pos, eq, 'name');
      if (hasControl(name))
        throw new ProxyError(
          'BAD_PARAMETER',
          `invalid parameter name "${echo(name)}": control characters are not allowed`,
        );
      const value = eq < amp ? decode(rawQuery, eq + 1, amp, name) : '';
      if (hasControl(value))
        throw new ProxyError('BAD_PARAMETER', `invalid parameter ${echo(name)}: control characters are not allowed`);
      const i = index.get(name);
      if (i !== undefined) {
        if (values[i] !== undefined)
          throw new ProxyError('DUPLICATE_PARAMETER', `duplicated parameter ${name}: give it once`);
        const spec = sorted[i]!;
        const r = spec.parse(value, limits);
        if (!r.ok) throw new ProxyError('BAD_PARAMETER', invalidMessage(name, r.expected, value));
        values[i] = r.value;
      }
    }
    pos = amp + 1;
  }

  const params = new Map<string, string>();
  let query = '';
  for (let i = 0; i < sorted.length; i++) {
    const spec = sorted[i]!;
    let v = values[i];
    if (v === undefined) {
      if (spec.required) {
        const r = spec.parse('', limits);
        const expected = r.ok ? 'a value' : r.expected;
        throw new ProxyError('MISSING_PARAMETER', `missing parameter ${spec.name}: expected ${expected}`);
      }
      v = spec.defaultValue;
      if (v === undefined) continue;
    }
    params.set(spec.name, v);
    query += (query.length === 0 ? '' : '&') + spec.name + '=' + encodeURIComponent(v);
  }

  if (endpoint.check !== undefined) {
    const msg = endpoint.check(params);
    if (msg !== null) throw new ProxyError(msg.startsWith(MISSING_PREFIX) ? 'MISSING_PARAMETER' : 'BAD_PARAMETER', msg);
  }

  const key = query.length === 0 ? endpoint.name : `${endpoint.name}?${query}`;
  return { endpoint, params, key, upstreamPath: `/${key}` };
}
