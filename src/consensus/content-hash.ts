/**
 * The content hash a quorum compares: SHA-256 of the canonical JSON of an
 * answer (object keys sorted, numbers as JSON.parse reads them, so `5.0` and
 * `5` agree) without the endpoint's ignored fields. Two honest upstreams
 * answering the same final block get the same hash; a different block hash,
 * transaction or status does not.
 */
import { createHash } from 'node:crypto';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** `value` without the fields at `paths` (segments; `*`: every array item). */
export function without(value: unknown, paths: readonly (readonly string[])[]): unknown {
  if (paths.length === 0) return value;
  if (Array.isArray(value)) {
    const inner = paths.filter((p) => p[0] === '*').map((p) => p.slice(1));
    return inner.length === 0 ? value : value.map((v) => without(v, inner));
  }
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const here = paths.filter((p) => p[0] === k);
    if (here.some((p) => p.length === 1)) continue;
    out[k] =
      here.length === 0
        ? v
        : without(
            v,
            here.map((p) => p.slice(1)),
          );
  }
  return out;
}

/** Deterministic JSON: object keys in code-point order at every level. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort();
    const record = value as Record<string, Json>;
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function contentHash(json: Record<string, unknown>, ignored: readonly (readonly string[])[]): string {
  return createHash('sha256')
    .update(canonicalJson(without(json, ignored)))
    .digest('hex');
}
