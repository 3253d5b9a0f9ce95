interface OpenApiResponse {
  content?: Record<string, { schema?: unknown }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, OpenApiResponse> }>>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
const hasSchema = (response: OpenApiResponse) => Object.values(response.content ?? {}).some((c) => c.schema);

/**
 * The operations of an OpenAPI document that do not say what they answer: a success without a body
 * schema (204 excepted), or no error answer with one. Each as `METHOD /path: what is missing`.
 */
export function undocumentedResponses(document: OpenApiDocument): string[] {
  const missing: string[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!METHODS.includes(method)) continue;
      const responses = Object.entries(operation.responses ?? {});
      const successes = responses.filter(([status]) => status.startsWith('2'));
      const errors = responses.filter(([status]) => status === 'default' || /^[45]/.test(status));
      const name = `${method.toUpperCase()} ${path}`;
      if (!successes.length) missing.push(`${name}: no success response`);
      for (const [status, response] of successes)
        if (status !== '204' && !hasSchema(response)) missing.push(`${name}: ${status} without a schema`);
      if (!errors.some(([, response]) => hasSchema(response))) missing.push(`${name}: no error body`);
    }
  }
  return missing;
}
