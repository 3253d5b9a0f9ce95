import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import { addJob, ContractQueue, DEFAULT_JOB_NAME } from '@app/queue';
import { REMINDER_JOB_OPTIONS, REMINDER_QUEUE, ReminderJobs } from './reminder.jobs';

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
      { ...REMINDER_JOB_OPTIONS, jobId: `${approvalId}:reminder-${round}`, delay: Math.max(0, atMs - Date.now()) },
    );
  }
}
