export { schema } from '../endpoints/language.js';
export type { Schema, FieldSpec } from '../endpoints/language.js';
export * from '../endpoints/records.js';
export { schemaForEndpoint, dataSpecOf } from './endpoints.js';
export { compileSpec, validateRecord, type Conforms } from './compile.js';
