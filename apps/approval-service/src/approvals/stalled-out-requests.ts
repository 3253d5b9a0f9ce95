import { Injectable } from '@nestjs/common';
import type { Job } from 'bull';
import { ApprovalRequestJob } from '@app/contracts/payloads';
import { jobDataProblems } from '@app/queue';
import { ApprovalListRepository } from './approval-list.repository';
import { withAuthTypeOnly, withoutAuthValues } from './auth-values-redaction';
import { oversizeReason, oversizedRemains } from './request-size';

/** The InvalidRequest comment of a valid request whose job stalled out before its approval was stored. */
export const REQUEST_STALLED_OUT =
  'request not taken in: every worker that took it in stopped before storing it; it is not tried again';

/** What a stalled-out request job keeps in Redis, and why it is refused (null: its approval goes on). */
export interface StalledOutRequest {
  kept: unknown;
  refusal: string | null;
}

/**
 * A request job Bull failed in its stalled check (each worker holding it stopped, MAX_STALLED_COUNT times over),
 * without intake's handler. Its approval, when stored before the stall, goes on (the stalled-delivery sweep sends
 * a first attempt nothing sent): the job only loses its auth values, as when taken in. Otherwise it is refused as
 * intake refuses a request it cannot take in: an InvalidRequest decision, so the run does not wait forever, and a
 * job that keeps only its authentication's type. It is not tried again: it would stop the workers again.
 */
@Injectable()
export class StalledOutRequests {
  constructor(private readonly approvals: ApprovalListRepository) {}

  async settle(job: Job): Promise<StalledOutRequest> {
    const tooLarge = await oversizeReason(job);
    if (tooLarge) return { refusal: tooLarge, kept: oversizedRemains(job.data) };
    const { value, problems } = jobDataProblems(ApprovalRequestJob, job.data);
    if (problems.length) return { refusal: problems.join(' | '), kept: withAuthTypeOnly(job.data) };
    if (await this.approvals.hasStep(value.tenantId, value.executionId, value.stepId))
      return { refusal: null, kept: withoutAuthValues(job.data) };
    return { refusal: REQUEST_STALLED_OUT, kept: withAuthTypeOnly(job.data) };
  }
}
