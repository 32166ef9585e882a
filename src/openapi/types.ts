/** The slice of OpenAPI 3.1 the generator writes (plain JSON values). */

/** A JSON Schema (2020-12, the OpenAPI 3.1 dialect). */
export type SchemaObject = { [key: string]: unknown };

export interface ParameterObject {
  name: string;
  in: 'query' | 'path' | 'header';
  required: boolean;
  description?: string;
  schema: SchemaObject;
  example?: unknown;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, { description: string; schema: SchemaObject }>;
  content?: Record<string, { schema: SchemaObject }>;
}

export interface OperationObject {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: ParameterObject[];
  requestBody?: { required: boolean; content: Record<string, { schema: SchemaObject }> };
  responses: Record<string, ResponseObject>;
}

type PathItemObject = Partial<Record<'get' | 'post' | 'head', OperationObject>>;
type PathsObject = Record<string, PathItemObject>;

/** What one feature adds to the document: its paths and the component schemas they reference. */
export interface OpenApiContribution {
  paths: PathsObject;
  schemas?: Record<string, SchemaObject>;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string }>;
  tags: Array<{ name: string; description: string }>;
  paths: PathsObject;
  components: { schemas: Record<string, SchemaObject> };
}
