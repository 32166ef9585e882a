/**
 * The one interpreter of the record schema language (validate.ts): each spec is
 * compiled once into a node that both checks values and writes its JSON
 * Schema. Three uses, one walk:
 *
 * - production (`conforms`): a boolean that stops at the first problem; fields
 *   not listed are accepted (a backend that adds a field must not take the site
 *   down) and string formats (`pattern`) are checked as strings only;
 * - tests (`problems`): every problem, with its path; strict: fields not listed
 *   and strings off their pattern are problems too (the recorded shape exactly);
 * - the OpenAPI document (`jsonSchema`): what production accepts, patterns
 *   given as the documented format.
 */
import type { FieldSpec, Schema } from '../endpoints/language.js';

/** JSON Schema (2020-12) as plain JSON. */
export type JsonSchema = { [key: string]: unknown };

/** Where problems go: null stops at the first one (production). */
interface Sink {
  strict: boolean;
  out: string[] | null;
}

/** Registers named schemas as components; returns the reference to use. */
export interface NamedSchemas {
  register(name: string, source: Schema, build: () => JsonSchema): JsonSchema;
}

interface Node {
  /** True when `v` conforms; problems are appended to `sink.out` when it is given. */
  test(v: unknown, at: string, sink: Sink): boolean;
  json(reg: NamedSchemas): JsonSchema;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function preview(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? s.slice(0, 40) + '…' : s;
}

/** After JSON.parse `4842503.0` is an integer; 'number' accepts integers too. */
const PRIMS: Readonly<Record<string, (v: unknown) => boolean>> = {
  string: (v) => typeof v === 'string',
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  array: (v) => Array.isArray(v),
};

function primitive(spec: string): Node {
  const types = spec.split('|');
  const alts = types.map((p) => {
    const f = PRIMS[p];
    if (f === undefined) throw new Error('unknown primitive type in schema: ' + p);
    return f;
  });
  const one = alts.length === 1 ? alts[0]! : null;
  return {
    test(v, at, sink) {
      if (one !== null ? one(v) : alts.some((f) => f(v))) return true;
      sink.out?.push(`${at}: expected ${spec}, got ${typeOf(v)} ${preview(v)}`);
      return false;
    },
    json: () => ({ type: types.length === 1 ? types[0] : types }),
  };
}

function pattern(re: RegExp, nullable: boolean): Node {
  return {
    test(v, at, sink) {
      if (v === null && nullable) return true;
      if (typeof v !== 'string') {
        sink.out?.push(`${at}: expected string matching ${re}, got ${typeOf(v)}`);
        return false;
      }
      if (!sink.strict || re.test(v)) return true;
      sink.out?.push(`${at}: ${JSON.stringify(v)} does not match ${re}`);
      return false;
    },
    json: () => ({ type: nullable ? ['string', 'null'] : 'string', pattern: re.source }),
  };
}

function array(of: FieldSpec): Node {
  const item = compile(of);
  return {
    test(v, at, sink) {
      if (!Array.isArray(v)) {
        sink.out?.push(`${at}: expected array, got ${typeOf(v)}`);
        return false;
      }
      let ok = true;
      for (let i = 0; i < v.length; i++) {
        if (item.test(v[i], sink.out === null ? at : `${at}[${i}]`, sink)) continue;
        ok = false;
        if (sink.out === null) return false;
      }
      return ok;
    },
    json: (reg) => ({ type: 'array', items: item.json(reg) }),
  };
}

function object(s: Schema): Node {
  const fields = Object.entries(s.fields).map(([name, spec]) => ({ name, node: compile(spec) }));
  const listed = new Set(fields.map((f) => f.name));
  return {
    test(v, at, sink) {
      if (typeOf(v) !== 'object') {
        sink.out?.push(`${at || s.name}: expected object (${s.name}), got ${typeOf(v)}`);
        return false;
      }
      const o = v as Record<string, unknown>;
      const prefix = at ? at + '.' : '';
      let ok = true;
      for (const f of fields) {
        if (!(f.name in o)) sink.out?.push(`${prefix}${f.name}: missing (${s.name})`);
        else if (f.node.test(o[f.name], sink.out === null ? at : prefix + f.name, sink)) continue;
        ok = false;
        if (sink.out === null) return false;
      }
      if (sink.strict && s.allowExtra !== true) {
        for (const k of Object.keys(o)) {
          if (listed.has(k)) continue;
          sink.out?.push(`${prefix}${k}: unexpected field (${s.name})`);
          ok = false;
        }
      }
      return ok;
    },
    json: (reg) =>
      reg.register(s.name, s, () => ({
        type: 'object',
        properties: Object.fromEntries(fields.map((f) => [f.name, f.node.json(reg)])),
        required: fields.map((f) => f.name),
        // What production does: fields not listed are accepted.
        additionalProperties: true,
      })),
  };
}

const bySpec = new WeakMap<object, Node>();
const byString = new Map<string, Node>();

/** The compiled node of a spec (once per spec object or primitive string). */
function compile(spec: FieldSpec): Node {
  if (typeof spec === 'string') {
    let n = byString.get(spec);
    if (n === undefined) byString.set(spec, (n = primitive(spec)));
    return n;
  }
  let n = bySpec.get(spec);
  if (n !== undefined) return n;
  switch (spec.kind) {
    case 'schema':
      n = object(spec);
      break;
    case 'array':
      n = array(spec.of);
      break;
    case 'pattern':
      n = pattern(spec.re, spec.nullable);
      break;
  }
  bySpec.set(spec, n);
  return n;
}

export type Conforms = (value: unknown) => boolean;

const PRODUCTION: Sink = { strict: false, out: null };

/** The production check of `spec` (see the module comment). */
export function compileSpec(spec: FieldSpec): Conforms {
  const node = compile(spec);
  return (v) => node.test(v, '', PRODUCTION);
}

/** Problems found validating `value` strictly against `spec` (empty when valid). */
export function validateRecord(spec: FieldSpec, value: unknown, at = ''): string[] {
  const out: string[] = [];
  const isSchema = typeof spec === 'object' && spec.kind === 'schema';
  compile(spec).test(value, isSchema ? at : at || 'value', { strict: true, out });
  return out;
}

/** JSON Schema of `spec`; named schemas go through `reg`. */
export function jsonSchemaOf(spec: FieldSpec, reg: NamedSchemas): JsonSchema {
  return compile(spec).json(reg);
}
