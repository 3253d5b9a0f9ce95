import { BadRequestException, NotFoundException as NestNotFound } from '@nestjs/common';
import { DomainException, ValidationFailedException } from './domain.exception';
import { toErrorBody } from './error-body';

describe(toErrorBody.name, () => {
  it('keeps a domain exception code, message, details and extra fields', () => {
    const sut = toErrorBody(new DomainException(409, 'SYNC_IN_PROGRESS', 'busy', [], { syncRunId: 'r1' }));
    expect(sut).toEqual({
      statusCode: 409,
      error: 'Conflict',
      code: 'SYNC_IN_PROGRESS',
      message: 'busy',
      details: [],
      syncRunId: 'r1',
    });
  });

  it('lists field problems of a validation failure', () => {
    const sut = toErrorBody(
      new ValidationFailedException('bad', [{ field: 'name', problems: ['name must be a string'] }]),
    );
    expect(sut).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'VALIDATION_FAILED' });
    expect(sut?.details).toEqual([{ field: 'name', problems: ['name must be a string'] }]);
  });

  it('maps framework exceptions to a stable code', () => {
    expect(toErrorBody(new NestNotFound('Cannot GET /x'))).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
    expect(toErrorBody(new BadRequestException('nope'))).toMatchObject({
      statusCode: 400,
      code: 'BAD_REQUEST',
      message: 'nope',
    });
  });

  it('maps body-parser errors to 413 and 400', () => {
    expect(toErrorBody({ type: 'entity.too.large', status: 413 })).toMatchObject({
      statusCode: 413,
      code: 'PAYLOAD_TOO_LARGE',
    });
    expect(toErrorBody({ type: 'entity.parse.failed', status: 400 })).toMatchObject({
      statusCode: 400,
      code: 'MALFORMED_JSON',
    });
  });

  it("answers 400 to a body that does not inflate, as to any refusal body-parser marks as the client's", () => {
    const zlibError = Object.assign(new Error('incorrect header check'), {
      code: 'Z_DATA_ERROR',
      status: 400,
      expose: true,
    });
    expect(toErrorBody(zlibError)).toMatchObject({ statusCode: 400, code: 'BAD_REQUEST' });
    expect(toErrorBody({ type: 'encoding.invalid', status: 400 })).toEqual(toErrorBody(zlibError));
    expect(toErrorBody(Object.assign(new Error('x'), { status: 400 }))).toBeNull();
  });

  it('returns null for unexpected errors so the filter hides them behind a 500', () => {
    expect(toErrorBody(new Error('relation "x" does not exist'))).toBeNull();
  });
});
