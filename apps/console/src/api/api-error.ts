import type { ErrorBody } from './types';

export interface FieldProblem {
  field: string;
  problems: string[];
}

/** The contract's error body as a typed error; status 0 when the service did not answer at all. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown[] = [],
    readonly body: ErrorBody | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static async from(response: Response): Promise<ApiError> {
    const text = await response.text();
    const body = parseBody(text);
    if (body) return new ApiError(body.statusCode, body.code, body.message, body.details ?? [], body);
    return new ApiError(
      response.status,
      `HTTP_${response.status}`,
      text.trim().slice(0, 300) || response.statusText || `HTTP ${response.status}`,
    );
  }

  static unreachable(service: string, cause: unknown): ApiError {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return new ApiError(0, 'SERVICE_UNREACHABLE', `The ${service} did not answer (${reason}).`);
  }

  /** Problems per field of a VALIDATION_FAILED body, keyed by the field's dotted path. */
  get fieldProblems(): Record<string, string[]> {
    const byField: Record<string, string[]> = {};
    for (const detail of this.details) {
      const problem = detail as Partial<FieldProblem>;
      if (typeof problem.field === 'string' && Array.isArray(problem.problems))
        byField[problem.field] = [...(byField[problem.field] ?? []), ...problem.problems.map(besideItsField)];
    }
    return byField;
  }

  /** What the service says to do about it (`details: [{resolution}]`), if it says. */
  get resolution(): string | undefined {
    const found = this.details.find(
      (d): d is { resolution: string } => typeof (d as { resolution?: unknown })?.resolution === 'string',
    );
    return found?.resolution;
  }
}

/**
 * A problem as shown beside its field, which says the field's name already: "authorizationEndpoint must
 * be an absolute https URL" → "Must be an absolute https URL".
 */
function besideItsField(problem: string): string {
  const said = problem.replace(/^[a-z][\w.[\]]*\s+(?=must|should|is|has|cannot|may)/, '');
  return said.charAt(0).toUpperCase() + said.slice(1);
}

function parseBody(text: string): ErrorBody | null {
  try {
    const value = JSON.parse(text) as Partial<ErrorBody>;
    return typeof value?.code === 'string' && typeof value.message === 'string' && typeof value.statusCode === 'number'
      ? (value as ErrorBody)
      : null;
  } catch {
    return null;
  }
}
