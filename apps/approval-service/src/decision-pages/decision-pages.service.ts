import { Injectable } from '@nestjs/common';
import { OPEN_STATUSES } from '../approval-store/approval-state';
import { ApprovalException } from '../approval-store/approval.exception';
import type { Decided } from '../approval-store/batched-approvals';
import { CallbacksService } from '../callbacks/callbacks.service';
import { DecisionPageForm } from './decision-page-form.dto';
import { DecisionPageLinks } from './decision-page-links';
import type { ShownApproval } from './decision-page.html';
import { DecisionPageRepository, PageApproval } from './decision-page.repository';
import { prettyJson } from './pretty-json';

/** The step input shown on the page, pretty-printed: at most this many characters. */
export const STEP_INPUT_SHOWN_CHARS = 16_384;
/** Who decided, when the person typed no name. */
export const PAGE_DECIDER = 'decision-page';

/**
 * A person's way to decide without a callback: the signed link is the credential, as the callback token
 * is the callback's. Only a POST decides, so a link preview's GET cannot.
 */
@Injectable()
export class DecisionPagesService {
  constructor(
    private readonly links: DecisionPageLinks,
    private readonly repository: DecisionPageRepository,
    private readonly callbacks: CallbacksService,
  ) {}

  /** The open approval a link shows; 404 for a link that is not one, 409 once decided. */
  async open(token: string): Promise<ShownApproval> {
    const approval = await this.openApproval(token, true);
    // Pretty-printed here, not by jsonb_pretty: jsonb would sort the keys the runtime sent in its own order.
    const stepInput = approval.stepInput === null ? null : prettyJson(approval.stepInput, STEP_INPUT_SHOWN_CHARS);
    return { ...approval, stepInput };
  }

  /** The callback's decision (same state machine, same single event); `decidedBy` defaults to "decision-page". */
  async decide(token: string, form: DecisionPageForm): Promise<Decided> {
    const approval = await this.openApproval(token, false);
    const decided = await this.callbacks.record(approval.id, approval.callbackId, {
      status: form.status,
      comment: form.comment,
      decidedBy: form.decidedBy ?? PAGE_DECIDER,
    });
    if (decided?.status === form.status) return decided;
    if (decided) throw ApprovalException.notPending(decided.status); // past its deadline: timed out instead
    const now = await this.repository.find(approval.id, false);
    throw ApprovalException.notPending(now?.status ?? 'unknown');
  }

  private async openApproval(token: string, withStepInput: boolean): Promise<PageApproval> {
    const approvalId = this.links.approvalOf(token);
    const approval = approvalId && (await this.repository.find(approvalId, withStepInput));
    if (!approval) throw ApprovalException.decisionPageNotFound();
    if (!OPEN_STATUSES.includes(approval.status)) throw ApprovalException.notPending(approval.status);
    if (approval.overdue) throw ApprovalException.notPending('TimedOut'); // a worker times it out soon
    return approval;
  }
}
