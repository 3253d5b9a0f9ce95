import { Injectable } from '@nestjs/common';
import { ApprovalEnv } from '../approval-env';
import { randomUUID } from 'node:crypto';
import type { WebhookConfigDto } from '@app/contracts/payloads';
import type { WebhookTestView } from '@app/contracts/views';
import { CALLBACK_PATH } from './delivery.service';
import { WebhookSender } from './webhook-sender';
import { WebhookUrlPolicy } from './webhook-url-policy';

/**
 * A signed test delivery while configuring the step: one attempt, no retry, nothing stored. A host name
 * refused once resolved answers as a host that could not be reached (WebhookSender), so that a tenant member
 * cannot learn which internal names exist; a URL refused as written (scheme, an address in it) is a 400 naming the rule.
 */
@Injectable()
export class WebhookTester {
  private readonly callbackUrl: string;

  constructor(
    env: ApprovalEnv,
    private readonly policy: WebhookUrlPolicy,
    private readonly sender: WebhookSender,
  ) {
    this.callbackUrl = `${env.PUBLIC_BASE_URL.replace(/\/+$/, '')}${CALLBACK_PATH}`;
  }

  async test(webhook: WebhookConfigDto): Promise<WebhookTestView> {
    this.policy.assertAllowed(webhook.url);
    return this.attempt(webhook);
  }

  private attempt(webhook: WebhookConfigDto): Promise<WebhookTestView> {
    return this.sender.send({
      url: webhook.url,
      messageId: `test_${randomUUID()}`,
      authentication: webhook.authentication,
      timeoutSeconds: webhook.timeoutSeconds ?? 300,
      body: {
        test: true,
        agentName: 'test',
        message: webhook.message ?? '',
        callbackId: null,
        callbackToken: null,
        stepInput: null,
        previousResults: null,
        executionId: null,
        stepId: null,
        approvalId: null,
        callbackUrl: this.callbackUrl,
        decisionPageUrl: null,
        requestedAt: new Date().toISOString(),
      },
    });
  }
}
