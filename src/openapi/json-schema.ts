/**
 * The record schemas of src/schema as JSON Schema: every named Schema becomes
 * a component (`#/components/schemas/<name>`), referenced where it is used.
 * Strictness is kept: fields not listed are refused, as validateRecord does.
 */
import type { FieldSpec, Schema } from '../schema/index.js';
import type { SchemaObject } from './types.js';

const REF = '#/components/schemas/';

/** A component name (OpenAPI allows `A-Z a-z 0-9 . _ -`). */
export function componentName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_');
}

export function ref(name: string): SchemaObject {
  return { $ref: `${REF}${componentName(name)}` };
}

/** Collects the component schemas reached while converting. */
export class SchemaRegistry {
  readonly #schemas = new Map<string, SchemaObject>();
  readonly #sources = new Map<string, Schema>();

  get schemas(): Record<string, SchemaObject> {
    return Object.fromEntries(this.#schemas);
  }

  /** JSON Schema of a field spec; named schemas are registered and referenced. */
  convert(spec: FieldSpec): SchemaObject {
    if (typeof spec === 'string') {
      const types = spec.split('|');
      return { type: types.length === 1 ? types[0] : types };
    }
    switch (spec.kind) {
      case 'schema':
        return this.named(spec);
      case 'array':
        return { type: 'array', items: this.convert(spec.of) };
      case 'optional':
        return this.convert(spec.spec);
      case 'pattern':
        return { type: spec.nullable ? ['string', 'null'] : 'string', pattern: spec.re.source };
    }
  }

  /** Registers a named schema (once) and returns a reference to it. */
  named(s: Schema): SchemaObject {
    const name = componentName(s.name);
    const seen = this.#sources.get(name);
    if (seen !== undefined && seen !== s) throw new Error(`two different record schemas are named ${name}`);
    if (seen === undefined) {
      this.#sources.set(name, s);
      this.#schemas.set(name, {}); // placeholder first: recursive schemas terminate
      const properties: Record<string, SchemaObject> = {};
      const required: string[] = [];
      for (const [field, fs] of Object.entries(s.fields)) {
        properties[field] = this.convert(fs);
        if (!(typeof fs === 'object' && fs.kind === 'optional')) required.push(field);
      }
      this.#schemas.set(name, { type: 'object', properties, required, additionalProperties: s.allowExtra === true });
    }
    return ref(name);
  }
}
