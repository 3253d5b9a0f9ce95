import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { DEFAULT_JOB_NAME, JobHandlers, QueueProcessor } from '@app/queue';
import { REMINDER_JOBS, REMINDER_QUEUE, ReminderJobs } from './reminder.jobs';
import { RemindersService } from './reminders.service';

/** Thin: validate the job, delegate. Registered only in processes that run workers. */
@Injectable()
export class ReminderProcessor extends QueueProcessor<ReminderJobs> {
  constructor(
    @InjectQueue(REMINDER_QUEUE) queue: Queue,
    private readonly reminders: RemindersService,
  ) {
    super(queue, REMINDER_JOBS);
  }

  protected handlers(): JobHandlers<ReminderJobs> {
    return {
      [DEFAULT_JOB_NAME]: { concurrency: 10, run: ({ approvalId, round }) => this.reminders.remind(approvalId, round) },
    };
  }
}
