import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { In } from 'typeorm';
import { CurrentPrincipal, Principal } from '@app/auth';
import { ApprovalRequestDto, TestWebhookDto } from '@app/contracts';
import { ListApprovalsQuery } from './list-approvals.query';
import { ApprovalsRepository } from './approvals.repository';
import { approvalResponse } from './approval.response';
import { ApprovalsService } from './approvals.service';
import { WebhookTester } from '../delivery/webhook-tester';

@ApiTags('approvals')
@ApiBearerAuth()
@Controller('v1/approvals')
export class ApprovalsController {
  constructor(
    private readonly approvals: ApprovalsService,
    private readonly repository: ApprovalsRepository,
    private readonly tester: WebhookTester,
  ) {}

  /** 201 for a new approval; 200 with the existing one for a repeated (executionId, stepId). */
  @Post()
  async request(@CurrentPrincipal() principal: Principal, @Body() body: ApprovalRequestDto, @Res({ passthrough: true }) res: Response) {
    const { approval, created } = await this.approvals.request(principal.tenantId, body);
    res.status(created ? 201 : 200);
    return { approvalId: approval.id, callbackId: approval.callbackId, status: approval.status };
  }

  /** One signed test delivery, one attempt, nothing stored. */
  @Post('test-webhook')
  @HttpCode(200)
  testWebhook(@Body() body: TestWebhookDto) {
    return this.tester.test(body.webhook);
  }

  @Get()
  @ApiQuery({ name: 'executionId', required: false })
  @ApiQuery({ name: 'status', required: false })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListApprovalsQuery) {
    const approvals = await this.approvals.list(principal.tenantId, query);
    const entries = approvals.length ? await this.repository.log.find({ where: { approvalId: In(approvals.map((a) => a.id)) }, order: { id: 'ASC' } }) : [];
    return approvals.map((a) => approvalResponse(a, entries.filter((e) => e.approvalId === a.id)));
  }

  @Get(':id')
  async get(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string) {
    const approval = await this.approvals.get(principal.tenantId, id);
    return approvalResponse(approval, await this.repository.entries(id));
  }

  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(@CurrentPrincipal() principal: Principal, @Param('id', ParseUUIDPipe) id: string) {
    const approval = await this.approvals.cancel(principal.tenantId, id, principal.userId);
    return approvalResponse(approval, await this.repository.entries(id));
  }
}
