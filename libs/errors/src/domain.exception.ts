/** One field problem in a validation error body. */
export interface FieldProblem {
  field: string;
  problems: string[];
}

/**
 * An error with a stable UPPER_SNAKE code. Features subclass it (or use it directly) and the global
 * filter turns it into the contract's error body.
 */
export class DomainException extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details: unknown[] = [],
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class NotFoundException extends DomainException {
  constructor(what: string, code = 'NOT_FOUND') {
    super(404, code, `${what} not found`);
  }
}

export class ValidationFailedException extends DomainException {
  constructor(message: string, details: FieldProblem[] = []) {
    super(400, 'VALIDATION_FAILED', message, details);
  }
}

/** A refusal the caller should retry after a while: the error filter adds `Retry-After`. */
export class RetryLaterException extends DomainException {
  constructor(
    statusCode: number,
    code: string,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(statusCode, code, message);
  }
}
