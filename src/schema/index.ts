export { validateRecord, schema, arrayOf, optional, pattern } from './validate.js';
export type { Schema, FieldSpec, ArraySpec, OptionalSpec, PatternSpec, Primitive } from './validate.js';
export * from './records.js';
export { schemaForEndpoint, ENDPOINT_PATHS } from './endpoints.js';
export { dataSpecOf } from './endpoints.js';
export { compileSpec, type Conforms } from './conform.js';
