import { applyDecorators } from '@nestjs/common';
import { ApiDefaultResponse, ApiProperty, ApiResponse } from '@nestjs/swagger';
import type { ErrorView } from '../views/error.view';

export class ErrorResponse implements ErrorView {
  [extra: string]: unknown;

  @ApiProperty({ example: 400 })
  statusCode: number;

  @ApiProperty({ example: 'Bad Request' })
  error: string;

  @ApiProperty({ example: 'VALIDATION_FAILED', description: 'A stable UPPER_SNAKE identifier' })
  code: string;

  @ApiProperty()
  message: string;

  @ApiProperty({ type: 'array', items: {}, description: 'Field problems for validation errors' })
  details: unknown[];
}

/** On a controller: every answer other than the documented ones carries the contract's error body. */
export function ApiErrorResponses() {
  return applyDecorators(
    ApiDefaultResponse({ type: ErrorResponse, description: 'Any error, with its status and stable code' }),
  );
}

/** An error answer of an operation: its status, then the stable codes it can carry. */
export type ErrorAnswer = [status: number, ...codes: string[]];

/**
 * On an operation (or a controller): the 4xx answers it can give besides those every operation lists
 * (400 VALIDATION_FAILED, 401 UNAUTHENTICATED with a token, 404 for a path with an id), each with its
 * codes, so a generated client can tell a 409 SYNC_IN_PROGRESS from a 404.
 */
export function ApiErrors(...answers: ErrorAnswer[]) {
  return applyDecorators(
    ...answers.map(([status, ...codes]) =>
      ApiResponse({ status, type: ErrorResponse, description: codes.map((code) => `\`${code}\``).join(', ') }),
    ),
  );
}
