import type { OpenAPIObject } from '@nestjs/swagger';
import type {
  OperationObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
const ERROR_BODY = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } };

/**
 * What @nestjs/swagger leaves out or writes against OpenAPI 3.0 (Redocly's recommended rules, checked
 * by `npm run lint`): the 4xx answers every operation shares, `type` beside `nullable`, a server.
 */
export function completeOpenApiDocument(document: OpenAPIObject): OpenAPIObject {
  // Relative: the document is served by the service it describes, whatever address that has.
  if (!document.servers?.length) document.servers = [{ url: '/', description: 'This service' }];
  for (const [path, item] of Object.entries(document.paths))
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) addSharedErrors(path, operation);
    }
  for (const schema of Object.values(document.components?.schemas ?? {})) typeNullables(schema as SchemaObject);
  return document;
}

/** 400 for bad input (unknown query keys included), 401 with a bearer token, 404 for a path with an id. */
function addSharedErrors(path: string, operation: OperationObject): void {
  const responses = operation.responses as Record<string, ResponseObject>;
  const authenticated = operation.security?.some((requirement) => 'bearer' in requirement);
  const shared: [string, string, boolean][] = [
    ['400', '`VALIDATION_FAILED`: a field, parameter or query key is wrong or unknown', true],
    ['401', '`UNAUTHENTICATED`: the bearer token is missing, invalid or expired', !!authenticated],
    ['404', "`…_NOT_FOUND`: no such resource in the caller's tenant", path.includes('{')],
  ];
  for (const [status, description, applies] of shared)
    if (applies && !responses[status]) responses[status] = { description, content: ERROR_BODY };
}

/** `nullable` needs a `type` beside it in OpenAPI 3.0; a nullable reference (`allOf`) is an object. */
function typeNullables(schema: SchemaObject): void {
  for (const property of Object.values(schema.properties ?? {}) as SchemaObject[])
    if (property.nullable && !property.type && property.allOf) property.type = 'object';
}
