import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import { bodyFor, toErrorBody } from './error-body';

/** The one place that turns any error into the contract's error body. Nothing internal leaks. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const response = host.switchToHttp().getResponse<Response>();
    let body = toErrorBody(exception);
    if (!body) {
      const errorId = randomUUID();
      this.logger.error({ errorId, err: exception }, 'Unexpected error');
      body = { ...bodyFor(500, 'INTERNAL_ERROR', `Unexpected error; quote error id ${errorId}`), errorId };
    }
    if (response.headersSent) {
      response.end();
      return;
    }
    response.status(body.statusCode).json(body);
  }
}
