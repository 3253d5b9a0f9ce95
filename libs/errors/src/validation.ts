import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, ValidateIf } from 'class-validator';
import { bodyPolicyProblems, restoreFreeForm } from './body-policy';
import { FieldProblem, ValidationFailedException } from './domain.exception';
import { cacheValidationMetadata } from './validation-metadata-cache';

cacheValidationMetadata();

export function fieldProblems(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, problems: Object.values(error.constraints) }] : [];
    return [...own, ...fieldProblems(error.children ?? [], field)];
  });
}

export function validationFailed(errors: ValidationError[]): ValidationFailedException {
  return problemsFailed(fieldProblems(errors));
}

export function problemsFailed(details: FieldProblem[]): ValidationFailedException {
  const summary = details.map((d) => d.problems.join('; ')).join('; ');
  return new ValidationFailedException(summary || 'Request validation failed', details);
}

/**
 * The one payload check, for HTTP bodies and queue jobs alike: the body policy first (U+0000,
 * prototype keys, depth), then the DTO with unknown keys refused. Free-form fields stay as sent.
 */
export function validatePayload<T extends object>(
  payloadClass: new () => T,
  data: unknown,
): { value: T; problems: FieldProblem[] } {
  const plain = data ?? {};
  const policy = bodyPolicyProblems(plain, payloadClass);
  if (policy.length) return { value: plain as T, problems: policy };
  if (typeof plain !== 'object' || Array.isArray(plain))
    return { value: plain as T, problems: [{ field: 'body', problems: ['body must be a JSON object'] }] };
  const value = plainToInstance(payloadClass, plain);
  // class-validator refuses every object of a class without rules as "unknown": such a payload (a sweep's
  // job) carries nothing, so it takes an empty object only.
  if (!declaresRules(payloadClass)) return { value, problems: Object.keys(plain).map(notAllowed) };
  restoreFreeForm(value, plain, payloadClass);
  return { value, problems: fieldProblems(validateSync(value, { whitelist: true, forbidNonWhitelisted: true })) };
}

function declaresRules(payloadClass: new () => object): boolean {
  return getMetadataStorage().getTargetValidationMetadatas(payloadClass, '', true, false).length > 0;
}

const notAllowed = (field: string): FieldProblem => ({ field, problems: [`property ${field} should not exist`] });

/** Strict validation: unknown keys are refused, payloads become DTO instances, the body policy holds everywhere. */
export class StrictValidationPipe extends ValidationPipe {
  constructor() {
    super({ whitelist: true, forbidNonWhitelisted: true, transform: true, exceptionFactory: validationFailed });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'custom') return value;
    if (!metadata.metatype || !this.toValidate(metadata)) {
      const problems = bodyPolicyProblems(value);
      if (problems.length) throw problemsFailed(problems);
      return super.transform(value, metadata);
    }
    const { value: payload, problems } = validatePayload(metadata.metatype as new () => object, value);
    if (problems.length) throw problemsFailed(problems);
    return payload;
  }
}

export function strictValidationPipe(): ValidationPipe {
  return new StrictValidationPipe();
}

/**
 * A field that may be left out but, when sent, is validated: `null` included. (`IsOptional` lets `null`
 * through unvalidated, which for a field that is never null reached the service, and the database, as a value.)
 */
export const Omittable = () => ValidateIf((_object: object, value: unknown) => value !== undefined);
