/**
 * The record schemas of src/schema in the document: the one interpreter
 * (schema/compile.ts) writes each spec's JSON Schema, the same rules that
 * production checks answers with (fields not listed are accepted); every
 * named Schema becomes a component (`#/components/schemas/<name>`),
 * referenced where it is used.
 */
import { jsonSchemaOf, type JsonSchema, type NamedSchemas } from '../schema/compile.js';
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
export class SchemaRegistry implements NamedSchemas {
  readonly #schemas = new Map<string, SchemaObject>();
  readonly #sources = new Map<string, Schema>();

  get schemas(): Record<string, SchemaObject> {
    return Object.fromEntries(this.#schemas);
  }

  /** JSON Schema of a field spec; named schemas are registered and referenced. */
  convert(spec: FieldSpec): SchemaObject {
    return jsonSchemaOf(spec, this);
  }

  /** A named schema: registered (once) and referenced. */
  named(s: Schema): SchemaObject {
    return jsonSchemaOf(s, this);
  }

  /** Registers the component `build` writes for `source` (once) and returns a reference to it. */
  register(a: string, source: Schema, build: () => JsonSchema): JsonSchema {
    const name = componentName(a);
    const seen = this.#sources.get(name);
    if (seen !== undefined && seen !== source) throw new Error(`two different record schemas are named ${name}`);
    if (seen === undefined) {
      this.#sources.set(name, source);
      this.#schemas.set(name, {}); // placeholder first: recursive schemas terminate
      this.#schemas.set(name, build());
    }
    return ref(name);
  }
}
