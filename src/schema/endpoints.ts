/** Whole-response schemas per endpoint path, from the endpoint modules' record schemas. */
import { moduleOf } from '../endpoints/index.js';
import type { FieldSpec, Schema } from '../endpoints/language.js';
import { envelopeOf } from '../endpoints/records.js';

const cache = new Map<string, Schema>();

/**
 * Schema of a successful response body of an endpoint. Accepts "tx/list", "/tx/list",
 * "/tx/list?page=2" or a full URL; undefined for unknown paths.
 */
export function schemaForEndpoint(path: string): Schema | undefined {
  let p = path;
  const proto = p.indexOf('://');
  if (proto >= 0) p = p.slice(p.indexOf('/', proto + 3) >>> 0);
  const q = p.indexOf('?');
  if (q >= 0) p = p.slice(0, q);
  p = p.replace(/^\/+|\/+$/g, '');
  const data = moduleOf(p)?.data;
  if (data === undefined) return undefined;
  let s = cache.get(p);
  if (!s) {
    s = envelopeOf(data, 'Response ' + p);
    cache.set(p, s);
  }
  return s;
}

/** Spec of the `data` member of a successful answer of an endpoint (no leading slash); undefined for unknown paths. */
export function dataSpecOf(endpoint: string): FieldSpec | undefined {
  return moduleOf(endpoint)?.data;
}
