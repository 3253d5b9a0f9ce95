interface OpenApiResponse {
  content?: Record<string, { schema?: unknown }>;
}
interface OpenApiOperation {
  summary?: string;
  responses?: Record<string, OpenApiResponse>;
}
export interface OpenApiDocument {
  info: { title: string };
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
const hasSchema = (response: OpenApiResponse) => Object.values(response.content ?? {}).some((c) => c.schema);

/** Every operation of the document as [`METHOD /path`, operation]. */
function operationsOf(document: OpenApiDocument): [string, OpenApiOperation][] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]): [string, OpenApiOperation] => [`${method.toUpperCase()} ${path}`, operation]),
  );
}

/** The operations of an OpenAPI document without a summary, each as `METHOD /path: no summary`. */
export function unsummarizedOperations(document: OpenApiDocument): string[] {
  return operationsOf(document)
    .filter(([, operation]) => !operation.summary?.trim())
    .map(([name]) => `${name}: no summary`);
}

/**
 * The operations of an OpenAPI document that do not say what they answer: a success without a body
 * schema (204 excepted), or no error answer with one. Each as `METHOD /path: what is missing`.
 */
export function undocumentedResponses(document: OpenApiDocument): string[] {
  const missing: string[] = [];
  for (const [name, operation] of operationsOf(document)) {
    const responses = Object.entries(operation.responses ?? {});
    const successes = responses.filter(([status]) => status.startsWith('2'));
    const errors = responses.filter(([status]) => status === 'default' || /^[45]/.test(status));
    if (!successes.length) missing.push(`${name}: no success response`);
    for (const [status, response] of successes)
      if (status !== '204' && !hasSchema(response)) missing.push(`${name}: ${status} without a schema`);
    if (!errors.some(([, response]) => hasSchema(response))) missing.push(`${name}: no error body`);
  }
  return missing;
}
