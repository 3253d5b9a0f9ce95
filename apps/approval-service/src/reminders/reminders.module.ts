import { BullModule } from '@nestjs/bull';
import { DynamicModule, Module } from '@nestjs/common';
import { ProcessRole, runsWorkers } from '@app/config';
import { OutageModule } from '@app/database';
import { ApprovalStoreModule } from '../approval-store/approval-store.module';
import { REMINDER_QUEUE } from './reminder.jobs';
import { ReminderProcessor } from './reminder.processor';
import { ReminderProducer } from './reminder.producer';
import { RemindersService } from './reminders.service';
import { ReminderSweeper } from './reminder.sweeper';

/**
 * Reminder rounds: a delayed job per round, which hands its delivery to the delivery queue, and in workers a sweep
 * for rounds whose job was lost. `delivery` is the application's one DeliveryModule (the same object its other
 * importers get, so it is built once).
 */
@Module({})
export class RemindersModule {
  static forRole(role: ProcessRole, delivery: DynamicModule): DynamicModule {
    return {
      module: RemindersModule,
      imports: [ApprovalStoreModule, OutageModule, delivery, BullModule.registerQueue({ name: REMINDER_QUEUE })],
      providers: [
        ReminderProducer,
        ...(runsWorkers(role) ? [RemindersService, ReminderProcessor, ReminderSweeper] : []),
      ],
      exports: [ReminderProducer],
    };
  }
}
