import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import { addJob, ContractQueue, DEFAULT_JOB_NAME } from '@app/queue';
import { REMINDER_JOB_OPTIONS, REMINDER_QUEUE, ReminderJobs } from './reminder.jobs';

const roundJobId = (approvalId: string, round: number) => `${approvalId}:reminder-${round}`;

/** The only place that adds reminder rounds. The job id makes a round's job unique while it waits. */
@Injectable()
export class ReminderProducer {
  constructor(@InjectQueue(REMINDER_QUEUE) private readonly queue: ContractQueue<ReminderJobs>) {}

  /** The first round of a new approval: one interval after its request. */
  scheduleFirst(approvalId: string, requestedAt: Date, remindAfterSeconds: number): Promise<void> {
    return this.schedule(approvalId, 1, requestedAt.getTime() + remindAfterSeconds * 1000);
  }

  async schedule(approvalId: string, round: number, atMs: number): Promise<void> {
    await addJob(
      this.queue,
      DEFAULT_JOB_NAME,
      { approvalId, round },
      { ...REMINDER_JOB_OPTIONS, jobId: roundJobId(approvalId, round), delay: Math.max(0, atMs - Date.now()) },
    );
  }

  /**
   * A round whose job Redis lost, due at once: a no-op while its job waits or runs. Bull ignores an add under
   * the id of a failed job, so a failed one goes first, and so does a husk: a worker's take resent to an emptied
   * Redis writes `processedOn` under the id, and the worker fails the job it reads back, which has no data.
   */
  async addAgain(approvalId: string, round: number): Promise<void> {
    const jobId = roundJobId(approvalId, round);
    const job = await this.queue.getJob(jobId);
    const husk = async () => (await this.queue.client.hexists(this.queue.toKey(jobId), 'data')) === 0;
    if (job && ((await husk()) || (await job.isFailed()))) await job.remove();
    await this.schedule(approvalId, round, 0);
  }
}
