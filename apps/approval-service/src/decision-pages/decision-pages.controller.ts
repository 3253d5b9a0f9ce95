import { Body, Controller, Get, HttpCode, Param, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiConsumes, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ThrottlerGuard } from '@nestjs/throttler';
import type { FastifyReply } from 'fastify';
import { Public } from '@app/auth';
import { ApiErrorResponses, ApiErrors } from '@app/contracts/openapi';
import { DecisionPageForm } from './decision-page-form.dto';
import { DecisionPageErrors } from './decision-page.filter';
import { decisionForm, decisionRecorded } from './decision-page.html';
import { sendPage } from './decision-page.response';
import { DecisionPagesService } from './decision-pages.service';

const HTML_PAGE = { 'text/html': { schema: { type: 'string' } } };

/** No platform token: the signed token in the path is the credential. Rate-limited per client address, as callbacks are. */
@ApiTags('approvals')
@Public()
@UseGuards(ThrottlerGuard)
@UseFilters(DecisionPageErrors)
@ApiErrorResponses()
@ApiParam({ name: 'token', description: 'The signed token of the approval’s decisionPageUrl' })
@Controller('v1/decision-pages')
export class DecisionPagesController {
  constructor(private readonly pages: DecisionPagesService) {}

  @Get(':token')
  @ApiErrors([404, 'DECISION_PAGE_NOT_FOUND'])
  @ApiOperation({
    summary: 'Show the page where a person approves or denies an approval (HTML)',
    description:
      'The agent, the message, the step input (escaped, at most 16,384 characters shown) and Approve / Deny with ' +
      'a comment and an optional name. Works without JavaScript. Showing it decides nothing. 409 once the ' +
      'approval is no longer Pending or AwaitingDecision; 404 for another or a tampered token, or when the ' +
      'service runs with DECISION_PAGE=false. Errors are pages too, or the error body with Accept: application/json.',
  })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The decision page', content: HTML_PAGE })
  async show(@Param('token') token: string, @Res() res: FastifyReply): Promise<void> {
    sendPage(res, 200, decisionForm(await this.pages.open(token)));
  }

  @Post(':token')
  @ApiErrors([404, 'DECISION_PAGE_NOT_FOUND'], [409, 'APPROVAL_NOT_PENDING'], [429, 'RATE_LIMITED'])
  @HttpCode(200)
  @ApiOperation({
    summary: "Record the decision made on an approval's decision page",
    description:
      'The form of the page (application/x-www-form-urlencoded): status Approved or Denied, comment and decidedBy ' +
      'optional ("decision-page" when empty). The callback’s rules: the same state machine and one decision event. ' +
      'Answers a page saying what was recorded (200), or that the approval is decided already (409).',
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The decision was recorded', content: HTML_PAGE })
  async decide(@Param('token') token: string, @Body() form: DecisionPageForm, @Res() res: FastifyReply): Promise<void> {
    sendPage(res, 200, decisionRecorded(await this.pages.decide(token, form)));
  }
}
