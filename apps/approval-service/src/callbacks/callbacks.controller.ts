import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ThrottlerGuard } from '@nestjs/throttler';
import { Public } from '@app/auth';
import { ApiErrorResponses, CallbackDecisionResponse, CallbackDecisionView } from '@app/contracts';
import { ApprovalCallbackDto } from './callback.dto';
import { CallbacksFirstGate } from './callbacks-first.gate';
import { CallbacksService } from './callbacks.service';

/** No platform token: the callbackToken in the body is the credential. Rate-limited per client address. */
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
  @HttpCode(200)
  @ApiOkResponse({ type: CallbackDecisionResponse })
  decide(@Body() body: ApprovalCallbackDto): Promise<CallbackDecisionView> {
    return this.gate.first(() => this.callbacks.decide(body));
  }
}
