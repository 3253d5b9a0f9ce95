import { Injectable } from '@nestjs/common';
import type { Job } from 'bull';
import { ApprovalRequestJob } from '@app/contracts/payloads';
import { jobDataProblems } from '@app/queue';
import { ApprovalListRepository } from './approval-list.repository';
import { withAuthTypeOnly, withoutAuthValues } from './auth-values-redaction';
import { oversizeReason, oversizedRemains } from './request-size';

/**
 * What a stalled-out request job keeps in Redis, and why it is refused (null: its approval goes on); `take`: the
 * valid request to store, as intake would (a step is stored once, should a live worker store it too).
 */
export interface StalledOutRequest {
  kept: unknown;
  refusal: string | null;
  take?: ApprovalRequestJob;
}

/**
 * A request job Bull failed in its stalled check (each worker holding it stopped, MAX_STALLED_COUNT times over),
 * without intake's handler. A valid one is taken in here (its first attempt queued), so the run does not wait
 * forever; stored already (before the stall, or by a worker that lost its lock but lives), its approval goes on.
 * Refusing it instead would race such a worker: an InvalidRequest beside a delivered approval. Either way the job
 * keeps no auth value. One too large or invalid is refused as intake refuses it.
 */
@Injectable()
export class StalledOutRequests {
  constructor(private readonly approvals: ApprovalListRepository) {}

  async settle(job: Job): Promise<StalledOutRequest> {
    const tooLarge = await oversizeReason(job);
    if (tooLarge) return { refusal: tooLarge, kept: oversizedRemains(job.data) };
    const { value, problems } = jobDataProblems(ApprovalRequestJob, job.data);
    if (problems.length) return { refusal: problems.join(' | '), kept: withAuthTypeOnly(job.data) };
    const stored = await this.approvals.hasStep(value.tenantId, value.executionId, value.stepId);
    return { refusal: null, kept: withoutAuthValues(job.data), take: stored ? undefined : value };
  }
}
