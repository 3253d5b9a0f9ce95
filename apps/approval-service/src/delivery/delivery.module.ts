import { BullModule } from '@nestjs/bull';
import { DynamicModule, Module } from '@nestjs/common';
import { ProcessRole, runsWorkers } from '@app/config';
import { fairShareProvider } from '@app/queue';
import { ApprovalStoreModule } from '../approval-store/approval-store.module';
import { CallbacksModule } from '../callbacks/callbacks.module';
import { OutageModule } from '@app/database';
import { ApprovalMetricsModule } from '../metrics/approval-metrics.module';
import { OutboxModule } from '../outbox/outbox.module';
import { AttemptsInFlight } from './attempts-in-flight';
import { DELIVERY_FAIR_SHARE, DELIVERY_QUEUE } from './delivery.jobs';
import { DeliveryProcessor } from './delivery.processor';
import { DeliveryProducer } from './delivery.producer';
import { DeliveryService } from './delivery.service';
import { FirstAttemptHandOff } from './first-attempt-hand-off';
import { HandedOffAttempts } from './handed-off-attempts';
import { LingeringReceivers } from './lingering-receivers';
import { StalledDeliverySweeper } from './stalled-delivery.sweeper';
import { WebhookSender } from './webhook-sender';
import { WebhookTester } from './webhook-tester';
import { WebhookUrlPolicy } from './webhook-url-policy';

@Module({})
export class DeliveryModule {
  static forRole(role: ProcessRole): DynamicModule {
    return {
      module: DeliveryModule,
      imports: [
        ApprovalStoreModule,
        OutboxModule,
        OutageModule,
        CallbacksModule,
        ApprovalMetricsModule,
        BullModule.registerQueue({ name: DELIVERY_QUEUE }),
      ],
      providers: [
        fairShareProvider(DELIVERY_QUEUE, DELIVERY_FAIR_SHARE),
        WebhookUrlPolicy,
        AttemptsInFlight,
        WebhookSender,
        WebhookTester,
        DeliveryProducer,
        DeliveryService,
        FirstAttemptHandOff,
        LingeringReceivers,
        HandedOffAttempts,
        ...(runsWorkers(role) ? [DeliveryProcessor, StalledDeliverySweeper] : []),
      ],
      exports: [WebhookUrlPolicy, WebhookTester, DeliveryProducer, FirstAttemptHandOff],
    };
  }
}
