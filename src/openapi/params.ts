/**
 * JSON Schemas of the catalogue's parameters, chosen by their parser, with
 * bounds from the configured limits. The catalogue stays the one source of the
 * rules: test/openapi checks every schema against its parser at the bounds.
 */
import { MAX_PAGE, parseAddress, parseBlockHeight, parseDays, parseFlag, parseHash, parseHeightOrHash, parsePage, parsePageSize, parseTokenName } from '../catalogue/params.js';
import type { ParamLimits, ParamSpec } from '../catalogue/types.js';
import type { ParameterObject, SchemaObject } from './types.js';

export const ADDRESS_PATTERN = '^n[1-9A-HJ-NP-Za-km-z]{34}$';
export const HASH_PATTERN = '^[0-9a-fA-F]{64}$';
export const TOKEN_PATTERN = '^[A-Za-z0-9._-]{1,64}$';
export const HEIGHT_OR_HASH_PATTERN = '^([0-9]{1,16}|[0-9a-fA-F]{64})$';

interface ParamDoc {
  schema: SchemaObject;
  description: string;
  example: unknown;
}

type Describe = (limits: ParamLimits) => ParamDoc;

const BY_PARSER = new Map<ParamSpec['parse'], Describe>([
  [parsePage, () => ({ schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE }, description: 'Page number (digits only).', example: 1 })],
  [parsePageSize, (l) => ({ schema: { type: 'integer', minimum: 1, maximum: l.maxPageSize }, description: 'Items per page.', example: 20 })],
  [parseDays, (l) => ({ schema: { type: 'integer', minimum: 1, maximum: l.maxDays }, description: 'Number of days back from today.', example: 7 })],
  [parseBlockHeight, () => ({ schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }, description: 'Block height.', example: 4_842_000 })],
  [parseAddress, () => ({ schema: { type: 'string', pattern: ADDRESS_PATTERN }, description: 'Nebulas address: "n" and 34 base58 characters.', example: 'n1d4wXxTVmK4rzyiN1vxhMuzxT441bxr8Fg' })],
  [parseHash, () => ({ schema: { type: 'string', pattern: HASH_PATTERN }, description: 'Transaction hash: 64 hexadecimal characters, any case.', example: 'f4a81d2f8b6b3ec4a9b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718' })],
  [parseHeightOrHash, () => ({ schema: { type: 'string', pattern: HEIGHT_OR_HASH_PATTERN }, description: 'Block height, or block hash (64 hexadecimal characters).', example: '4820298' })],
  [parseTokenName, () => ({ schema: { type: 'string', pattern: TOKEN_PATTERN }, description: 'Token name (case-sensitive).', example: 'NAX' })],
  [parseFlag, () => ({ schema: { type: 'boolean' }, description: 'true or false (also 1 or 0, any letter case). Absent: the upstream default.', example: true })],
]);

/** Typed default: integers and booleans as JSON values, as the schema declares them. */
function typedDefault(schema: SchemaObject, value: string): unknown {
  if (schema.type === 'integer') return Number(value);
  if (schema.type === 'boolean') return value === 'true';
  return value;
}

/** The OpenAPI parameter of a catalogue parameter; throws for a parser without a description. */
export function parameterOf(spec: ParamSpec, limits: ParamLimits, note?: string): ParameterObject {
  const describe = BY_PARSER.get(spec.parse);
  if (describe === undefined) throw new Error(`no OpenAPI description for the parser of parameter ${spec.name}`);
  const doc = describe(limits);
  const schema = spec.defaultValue === undefined ? doc.schema : { ...doc.schema, default: typedDefault(doc.schema, spec.defaultValue) };
  return {
    name: spec.name,
    in: 'query',
    required: spec.required,
    description: note === undefined ? doc.description : `${doc.description} ${note}`,
    schema,
    example: doc.example,
  };
}
