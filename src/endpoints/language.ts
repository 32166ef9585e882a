/**
 * The record schema language of the service's JSON records (compile.ts is its
 * one interpreter).
 *
 * Field specs: 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'object' (any plain object)
 * | 'array' (any array), a union written with '|' (e.g. 'null|integer'), a nested Schema,
 * `arrayOf(spec)`, or `pattern(re, nullable?)` for strings.
 * Note: after JSON.parse, `4842503.0` is an integer; 'number' accepts integers too.
 */

export interface Schema {
  readonly kind: 'schema';
  readonly name: string;
  readonly fields: Readonly<Record<string, FieldSpec>>;
  /** The strict check (tests) accepts fields not listed too (default false: they are problems). */
  readonly allowExtra?: boolean;
}
export interface ArraySpec {
  readonly kind: 'array';
  readonly of: FieldSpec;
}
export interface PatternSpec {
  readonly kind: 'pattern';
  readonly re: RegExp;
  readonly nullable: boolean;
}
export type FieldSpec = string | Schema | ArraySpec | PatternSpec;

export function schema(name: string, fields: Record<string, FieldSpec>, allowExtra = false): Schema {
  return { kind: 'schema', name, fields, allowExtra };
}
export function arrayOf(of: FieldSpec): ArraySpec {
  return { kind: 'array', of };
}
export function pattern(re: RegExp, nullable = false): PatternSpec {
  return { kind: 'pattern', re, nullable };
}
