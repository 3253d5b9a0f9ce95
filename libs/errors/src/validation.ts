import { ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldProblem, ValidationFailedException } from './domain.exception';

export function fieldProblems(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, problems: Object.values(error.constraints) }] : [];
    return [...own, ...fieldProblems(error.children ?? [], field)];
  });
}

export function validationFailed(errors: ValidationError[]): ValidationFailedException {
  const details = fieldProblems(errors);
  const summary = details.map((d) => d.problems.join('; ')).join('; ');
  return new ValidationFailedException(summary || 'Request validation failed', details);
}

/** Strict validation: unknown keys are refused, payloads become DTO instances. */
export function strictValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: validationFailed,
  });
}
