export { schema } from './language.js';
export type { Schema, FieldSpec } from './language.js';
export * from './records.js';
export { schemaForEndpoint, dataSpecOf } from './endpoints.js';
export { compileSpec, validateRecord, type Conforms } from './compile.js';
