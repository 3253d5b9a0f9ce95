import { applyDecorators } from '@nestjs/common';
import { ApiDefaultResponse, ApiProperty } from '@nestjs/swagger';
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
