import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ThrottlerGuard } from '@nestjs/throttler';
import { Public } from '@app/auth';
import { ApiErrorResponses, ApiErrors, CallbackDecisionResponse } from '@app/contracts/openapi';
import { CallbackDecisionView } from '@app/contracts/views';
import { ApprovalCallbackDto } from './callback.dto';
import { CallbacksFirstGate } from './callbacks-first.gate';
import { CallbacksService } from './callbacks.service';

/** No platform token: the callbackToken in the body is the credential. Rate-limited per client address and per callbackId with its token. */
@ApiTags('approvals')
@Public()
@UseGuards(ThrottlerGuard)
@ApiErrorResponses()
@Controller('v1/AgentExecutionWebhookApproval')
export class CallbacksController {
  constructor(
    private readonly callbacks: CallbacksService,
    private readonly gate: CallbacksFirstGate,
  ) {}

  @Post('callback')
  @ApiErrors(
    [401, 'CALLBACK_TOKEN_INVALID'],
    [404, 'CALLBACK_NOT_FOUND'],
    [409, 'APPROVAL_NOT_PENDING'],
    [429, 'RATE_LIMITED'],
  )
  @HttpCode(200)
  @ApiOperation({
    summary: "Record the approver's decision on an approval",
    description:
      'Called by the webhook receiver with the callbackId and callbackToken it was sent; no platform token. ' +
      'Idempotent: the same decision repeated answers the same 200; another decision, or any once the ' +
      'approval is no longer pending, gets 409 APPROVAL_NOT_PENDING. 401 CALLBACK_TOKEN_INVALID for a wrong ' +
      'token. Rate-limited per client address and per callbackId with its token, so a wrong token does not spend ' +
      'the right one’s share (a callbackId that is no UUID is not counted).',
  })
  @ApiOkResponse({ type: CallbackDecisionResponse })
  decide(@Body() body: ApprovalCallbackDto): Promise<CallbackDecisionView> {
    return this.gate.first(() => this.callbacks.decide(body));
  }
}
