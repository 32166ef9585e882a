/**
 * The OpenAPI parameter of a catalogue parameter: its schema, description and
 * example are declared beside its parser (src/endpoints/params.ts), bounds
 * from the configured limits; test/openapi checks each against its parser.
 */
import type { ParamLimits, ParamSpec } from '../endpoints/types.js';
import type { ParameterObject, SchemaObject } from './types.js';

/** Typed default: integers and booleans as JSON values, as the schema declares them. */
function typedDefault(schema: SchemaObject, value: string): unknown {
  if (schema.type === 'integer') return Number(value);
  if (schema.type === 'boolean') return value === 'true';
  return value;
}

export function parameterOf(spec: ParamSpec, limits: ParamLimits, note?: string): ParameterObject {
  const doc = spec.doc(limits);
  const schema =
    spec.defaultValue === undefined
      ? doc.schema
      : { ...doc.schema, default: typedDefault(doc.schema, spec.defaultValue) };
  return {
    name: spec.name,
    in: 'query',
    required: spec.required,
    description: note === undefined ? doc.description : `${doc.description} ${note}`,
    schema,
    example: doc.example,
  };
}
