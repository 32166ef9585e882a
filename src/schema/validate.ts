/**
 * A tiny dependency-free validator for the service's JSON records.
 *
 * Field specs: 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'object' (any plain object)
 * | 'array' (any array), a union written with '|' (e.g. 'null|integer'), a nested Schema,
 * `arrayOf(spec)`, `optional(spec)`, or `pattern(re, base?)` for strings.
 * Note: after JSON.parse, `4842503.0` is an integer; 'number' accepts integers too.
 */

export type Primitive = 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'object' | 'array';

export interface Schema {
  readonly kind: 'schema';
  readonly name: string;
  readonly fields: Readonly<Record<string, FieldSpec>>;
  /** accept fields not listed (default false: extra fields are problems) */
  readonly allowExtra?: boolean;
}
export interface ArraySpec {
  readonly kind: 'array';
  readonly of: FieldSpec;
}
export interface OptionalSpec {
  readonly kind: 'optional';
  readonly spec: FieldSpec;
}
export interface PatternSpec {
  readonly kind: 'pattern';
  readonly re: RegExp;
  readonly nullable: boolean;
}
export type FieldSpec = string | Schema | ArraySpec | OptionalSpec | PatternSpec;

export function schema(name: string, fields: Record<string, FieldSpec>, allowExtra = false): Schema {
  return { kind: 'schema', name, fields, allowExtra };
}
export function arrayOf(of: FieldSpec): ArraySpec {
  return { kind: 'array', of };
}
export function optional(spec: FieldSpec): OptionalSpec {
  return { kind: 'optional', spec };
}
export function pattern(re: RegExp, nullable = false): PatternSpec {
  return { kind: 'pattern', re, nullable };
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function primitiveOk(p: string, v: unknown): boolean {
  const t = typeOf(v);
  switch (p) {
    case 'number':
      return t === 'number' || t === 'integer';
    case 'integer':
    case 'string':
    case 'boolean':
    case 'null':
    case 'array':
      return t === p;
    case 'object':
      return t === 'object';
    default:
      throw new Error('unknown primitive type in schema: ' + p);
  }
}

function check(spec: FieldSpec, v: unknown, at: string, out: string[]): void {
  if (typeof spec === 'string') {
    const alts = spec.split('|');
    if (!alts.some((a) => primitiveOk(a, v))) out.push(`${at}: expected ${spec}, got ${typeOf(v)} ${preview(v)}`);
    return;
  }
  switch (spec.kind) {
    case 'schema':
      validateInto(spec, v, at, out);
      return;
    case 'array':
      if (!Array.isArray(v)) {
        out.push(`${at}: expected array, got ${typeOf(v)}`);
        return;
      }
      v.forEach((item, i) => check(spec.of, item, `${at}[${i}]`, out));
      return;
    case 'optional':
      if (v !== undefined) check(spec.spec, v, at, out);
      return;
    case 'pattern':
      if (v === null && spec.nullable) return;
      if (typeof v !== 'string') out.push(`${at}: expected string matching ${spec.re}, got ${typeOf(v)}`);
      else if (!spec.re.test(v)) out.push(`${at}: ${JSON.stringify(v)} does not match ${spec.re}`);
      return;
  }
}

function preview(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? s.slice(0, 40) + '…' : s;
}

function validateInto(s: Schema, v: unknown, at: string, out: string[]): void {
  if (typeOf(v) !== 'object') {
    out.push(`${at || s.name}: expected object (${s.name}), got ${typeOf(v)}`);
    return;
  }
  const o = v as Record<string, unknown>;
  const prefix = at ? at + '.' : '';
  for (const [k, spec] of Object.entries(s.fields)) {
    const isOptional = typeof spec === 'object' && spec.kind === 'optional';
    if (!(k in o)) {
      if (!isOptional) out.push(`${prefix}${k}: missing (${s.name})`);
      continue;
    }
    check(spec, o[k], prefix + k, out);
  }
  if (!s.allowExtra) {
    for (const k of Object.keys(o)) if (!(k in s.fields)) out.push(`${prefix}${k}: unexpected field (${s.name})`);
  }
}

/** Problems found validating `value` against `schema` (empty when valid). */
export function validateRecord(s: Schema | FieldSpec, value: unknown, at = ''): string[] {
  const out: string[] = [];
  if (typeof s === 'object' && s.kind === 'schema') validateInto(s, value, at, out);
  else check(s, value, at || 'value', out);
  return out;
}
