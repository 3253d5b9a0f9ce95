import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { UuidParamPipe } from '@app/errors';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ADMIN_ROLE, AGENT_RUNTIME_ROLE, CurrentPrincipal, Principal, RequireAnyRole } from '@app/auth';
import {
  ApiErrorResponses,
  ApiErrors,
  ApprovalCreatedResponse,
  ApprovalListItemResponse,
  ApprovalResponse,
  RedeliveryResponse,
  WebhookTestResponse,
} from '@app/contracts/openapi';
import {
  ApprovalCreatedView,
  ApprovalListItemView,
  ApprovalView,
  RedeliveryView,
  WebhookTestView,
} from '@app/contracts/views';
import { ApprovalRequestDto, TestWebhookDto } from '@app/contracts/payloads';
import { DEFAULT_PAGE_SIZE, ListApprovalsQuery, MAX_PAGE_SIZE } from './list-approvals.query';
import { decodeCursor, encodeCursor } from './approval-cursor';
import { ApprovalListRepository } from './approval-list.repository';
import { approvalResponse } from './dto/approval.response';
import { ApprovalsService } from './approvals.service';
import { WebhookTester } from '../delivery/webhook-tester';
import { ApprovalEnv } from '../approval-env';
import { WEBHOOK_TESTS_PER_TENANT, WebhookTestSlots } from './webhook-test-slots';
import { DecisionPageLinks } from '../decision-pages/decision-page-links';

/** Log entries per approval in the list; `GET /v1/approvals/{id}` shows the whole log. */
export const LIST_LOG_ENTRIES = 20;

@ApiTags('approvals')
@ApiBearerAuth()
@ApiErrorResponses()
@Controller('v1/approvals')
export class ApprovalsController {
  private readonly testMaxSeconds: number;

  constructor(
    private readonly approvals: ApprovalsService,
    private readonly tester: WebhookTester,
    private readonly testSlots: WebhookTestSlots,
    private readonly listing: ApprovalListRepository,
    private readonly links: DecisionPageLinks,
    env: ApprovalEnv,
  ) {
    this.testMaxSeconds = env.WEBHOOK_TEST_MAX_SECONDS;
  }

  @Post()
  @ApiErrors([400, 'VALIDATION_FAILED'], [409, 'APPROVAL_CONFLICT'])
  @RequireAnyRole(AGENT_RUNTIME_ROLE, ADMIN_ROLE)
  @ApiOperation({
    summary: 'Ask a person to approve an agent step, through a webhook',
    description:
      'Needs role agent-runtime or admin. Idempotent per (executionId, stepId): 201 for a new approval; a ' +
      'repeat answers 200 with the existing approval and sends nothing new, or 409 APPROVAL_CONFLICT when ' +
      'its webhook, agentName or message differ.',
  })
  @ApiCreatedResponse({ type: ApprovalCreatedResponse, description: 'A new approval' })
  @ApiOkResponse({ type: ApprovalCreatedResponse, description: 'The existing approval of a repeated request' })
  async request(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ApprovalRequestDto,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<ApprovalCreatedView> {
    const { approval, created } = await this.approvals.request(principal.tenantId, body);
    void res.status(created ? 201 : 200);
    return { approvalId: approval.id, callbackId: approval.callbackId, status: approval.status };
  }

  @Post('test-webhook')
  @ApiErrors([429, 'TOO_MANY_TESTS'])
  @RequireAnyRole(AGENT_RUNTIME_ROLE, ADMIN_ROLE)
  @ApiOperation({
    summary: 'Send one signed test delivery to a webhook while configuring the step',
    description:
      'Needs role agent-runtime or admin. One attempt, no retry, nothing stored. It waits at most ' +
      `WEBHOOK_TEST_MAX_SECONDS (30 s), whatever timeoutSeconds says; ${WEBHOOK_TESTS_PER_TENANT} run at once per ` +
      'tenant, and another answers 429 TOO_MANY_TESTS.',
  })
  @HttpCode(200)
  @ApiOkResponse({ type: WebhookTestResponse })
  testWebhook(@CurrentPrincipal() principal: Principal, @Body() body: TestWebhookDto): Promise<WebhookTestView> {
    const timeoutSeconds = Math.min(body.webhook.timeoutSeconds ?? this.testMaxSeconds, this.testMaxSeconds);
    return this.testSlots.run(principal.tenantId, () => this.tester.test({ ...body.webhook, timeoutSeconds }));
  }

  @Get()
  @ApiOperation({
    summary: 'List the approvals of the tenant, by execution or status',
    description: `Newest first, a page at a time; each shows the latest ${LIST_LOG_ENTRIES} entries of its log.`,
  })
  @ApiQuery({ name: 'executionId', required: false })
  @ApiQuery({ name: 'status', required: false })
  @ApiQuery({ name: 'limit', required: false, description: `1..${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}` })
  @ApiQuery({ name: 'cursor', required: false, description: 'X-Next-Cursor of the previous page' })
  @ApiOkResponse({
    type: [ApprovalListItemResponse],
    headers: {
      'X-Next-Cursor': {
        description: 'Cursor of the next page; absent on the last page',
        schema: { type: 'string' },
      },
      Link: { description: '<next page>; rel="next"', schema: { type: 'string' } },
    },
  })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListApprovalsQuery,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<ApprovalListItemView[]> {
    const { approvals, next } = await this.listing.page(
      principal.tenantId,
      query,
      query.limit,
      query.cursor ? decodeCursor(query.cursor) : null,
    );
    const logs = await this.listing.recentLogs(
      approvals.map((a) => a.id),
      LIST_LOG_ENTRIES,
    );
    if (next) {
      const cursor = encodeCursor(next);
      void res.header('X-Next-Cursor', cursor);
      void res.header('Link', `<${nextPage(req, query, cursor)}>; rel="next"`);
    }
    return approvals.map((a) => {
      const log = logs.get(a.id)!;
      return { ...approvalResponse(a, log.entries, principal, this.links.url(a.id)), logTruncated: log.truncated };
    });
  }

  @Get(':id')
  @ApiErrors([404, 'APPROVAL_NOT_FOUND'])
  @ApiOperation({ summary: 'Show an approval with its whole log' })
  @ApiOkResponse({ type: ApprovalResponse })
  async get(@CurrentPrincipal() principal: Principal, @Param('id', UuidParamPipe) id: string): Promise<ApprovalView> {
    const approval = await this.approvals.get(principal.tenantId, id);
    return approvalResponse(approval, await this.listing.entries(id), principal, this.links.url(id));
  }

  @Post(':id/redeliver')
  @ApiErrors([404, 'APPROVAL_NOT_FOUND'], [409, 'APPROVAL_NOT_AWAITING'])
  @RequireAnyRole(AGENT_RUNTIME_ROLE, ADMIN_ROLE)
  @ApiOperation({
    summary: 'Send the webhook of an approval awaiting a decision once more',
    description:
      'Needs role agent-runtime or admin. Same body, callback credentials and webhook-id; the approval stays ' +
      'AwaitingDecision. 409 APPROVAL_NOT_AWAITING in any other status.',
  })
  @HttpCode(202)
  @ApiAcceptedResponse({ type: RedeliveryResponse })
  redeliver(@CurrentPrincipal() principal: Principal, @Param('id', UuidParamPipe) id: string): Promise<RedeliveryView> {
    return this.approvals.redeliver(principal.tenantId, id);
  }

  @Post(':id/cancel')
  @ApiErrors([404, 'APPROVAL_NOT_FOUND'], [409, 'APPROVAL_NOT_PENDING'])
  @RequireAnyRole(AGENT_RUNTIME_ROLE, ADMIN_ROLE)
  @ApiOperation({
    summary: 'Cancel an approval that is still pending or awaiting a decision',
    description: 'Needs role agent-runtime or admin. The agent run gets a Cancelled decision.',
  })
  @HttpCode(200)
  @ApiOkResponse({ type: ApprovalResponse })
  async cancel(
    @CurrentPrincipal() principal: Principal,
    @Param('id', UuidParamPipe) id: string,
  ): Promise<ApprovalView> {
    const approval = await this.approvals.cancel(principal.tenantId, id, principal.userId);
    return approvalResponse(approval, await this.listing.entries(id), principal, this.links.url(id));
  }
}

function nextPage(req: FastifyRequest, query: ListApprovalsQuery, cursor: string): string {
  const params = new URLSearchParams({
    ...(query.executionId ? { executionId: query.executionId } : {}),
    ...(query.status ? { status: query.status } : {}),
    limit: String(query.limit),
    cursor,
  });
  return `${req.originalUrl.split('?')[0]}?${params}`;
}
