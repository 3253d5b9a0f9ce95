import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import accepts from 'accepts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AllExceptionsFilter, toErrorBody } from '@app/errors';
import { ApprovalErrorCode } from '../approval-store/approval.exception';
import { alreadyDecided, errorPage } from './decision-page.html';
import { sendPage } from './decision-page.response';

/**
 * The decision page's errors as pages a person can read (409 says the approval is decided already), with
 * the page's headers. A client that asks for JSON, and anything unexpected, gets the contract's error body.
 */
@Catch()
export class DecisionPageErrors implements ExceptionFilter {
  private readonly contractErrors = new AllExceptionsFilter();

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const body = toErrorBody(exception);
    if (!body || accepts(http.getRequest<FastifyRequest>().raw).type(['html', 'json']) === 'json')
      return this.contractErrors.catch(exception, host);
    const html =
      body.code === ApprovalErrorCode.NotPending
        ? alreadyDecided(String(body.status))
        : errorPage(body.statusCode, body.message);
    sendPage(http.getResponse<FastifyReply>(), body.statusCode, html);
  }
}
