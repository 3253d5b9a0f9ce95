import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { RetryLaterException } from './domain.exception';
import { bodyFor, toErrorBody } from './error-body';
import { answerBegun, endAnswer, HttpReply, sendJson } from './http-reply';
import { isInfrastructureError } from './infrastructure-error';
import { loggedError } from './logged-error';

/** The one place that turns any error into the contract's error body. Nothing internal leaks. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const response = host.switchToHttp().getResponse<HttpReply>();
    let body = toErrorBody(exception);
    if (exception instanceof RetryLaterException) response.header('Retry-After', String(exception.retryAfterSeconds));
    if (!body && isInfrastructureError(exception)) {
      // PostgreSQL or Redis is away (a restart, a failover): a pause for the caller to wait out, not a fault.
      this.logger.warn({ err: describeBriefly(exception) }, 'A backing service did not answer');
      response.header('Retry-After', '5');
      body = bodyFor(503, 'NOT_READY', 'A backing service is not reachable right now; try again shortly');
    }
    if (!body) {
      const errorId = randomUUID();
      this.logger.error({ errorId, err: loggedError(exception) }, 'Unexpected error');
      body = { ...bodyFor(500, 'INTERNAL_ERROR', `Unexpected error; quote error id ${errorId}`), errorId };
    }
    if (answerBegun(response)) {
      endAnswer(response);
      return;
    }
    sendJson(response, body.statusCode, body);
  }
}

function describeBriefly(error: unknown): string {
  return String((error as Error)?.message ?? error).slice(0, 200);
}
