import { Injectable } from '@nestjs/common';
import { ApprovalEnv } from '../approval-env';
import { OutboundUrlPolicy, URL_RULES } from '@app/outbound';
import { ApprovalException } from '../approval-store/approval.exception';

/**
 * Where webhooks may go: the shared outbound URL policy, with the approval-service's own switches
 * (WEBHOOK_ALLOW_INSECURE, WEBHOOK_ALLOW_PRIVATE_NETWORKS). Host names are judged by the sender's agents
 * on the address actually connected to.
 */
@Injectable()
export class WebhookUrlPolicy extends OutboundUrlPolicy {
  constructor(env: ApprovalEnv) {
    super({
      allowInsecure: env.WEBHOOK_ALLOW_INSECURE,
      allowPrivate: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    });
  }

  /** Throws 400 naming the rule the URL breaks. */
  assertAllowed(raw: string): URL {
    const rule = this.brokenRule(raw);
    if (rule) throw ApprovalException.webhookUrlRefused(`webhook.url ${URL_RULES[rule]}`);
    return new URL(raw);
  }
}
