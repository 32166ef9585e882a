/**
 * The production check of an answer's `data` against its record schema: a
 * boolean, compiled once per endpoint, that stops at the first problem (the
 * miss path pays one walk over the parsed value and no allocation).
 *
 * It is deliberately looser than `validateRecord`, which documents the exact
 * recorded shape: every listed field must be present with its type, but
 * unlisted fields are accepted (a backend that adds a field must not take the
 * site down) and string formats (`pattern`) are checked as strings only.
 */
import type { FieldSpec, Schema } from './validate.js';

export type Conforms = (value: unknown) => boolean;

type Prim = (v: unknown) => boolean;

const PRIMS: Readonly<Record<string, Prim>> = {
  string: (v) => typeof v === 'string',
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  array: (v) => Array.isArray(v),
};

function primitive(spec: string): Conforms {
  const alts = spec.split('|').map((p) => {
    const f = PRIMS[p];
    if (f === undefined) throw new Error('unknown primitive type in schema: ' + p);
    return f;
  });
  if (alts.length === 1) return alts[0]!;
  return (v) => alts.some((f) => f(v));
}

function object(s: Schema): Conforms {
  const fields = Object.entries(s.fields).map(([name, spec]) => {
    const optional = typeof spec === 'object' && spec.kind === 'optional';
    return { name, optional, ok: compileSpec(spec) };
  });
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
    const o = v as Record<string, unknown>;
    for (const f of fields) {
      const value = o[f.name];
      if (value === undefined) {
        if (f.optional || Object.prototype.hasOwnProperty.call(o, f.name)) continue;
        return false;
      }
      if (!f.ok(value)) return false;
    }
    return true;
  };
}

/** A boolean check of `spec` (see the module comment for what it checks). */
export function compileSpec(spec: FieldSpec): Conforms {
  if (typeof spec === 'string') return primitive(spec);
  switch (spec.kind) {
    case 'schema':
      return object(spec);
    case 'array': {
      const item = compileSpec(spec.of);
      return (v) => Array.isArray(v) && v.every((x) => item(x));
    }
    case 'optional': {
      const inner = compileSpec(spec.spec);
      return (v) => v === undefined || inner(v);
    }
    case 'pattern':
      return spec.nullable ? (v) => v === null || typeof v === 'string' : (v) => typeof v === 'string';
  }
}
