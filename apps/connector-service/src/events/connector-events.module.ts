import { BullModule } from '@nestjs/bull';
import { DynamicModule, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';
import { SharedQueue } from '@app/contracts/payloads';
import { ProcessRole, runsWorkers } from '@app/config';
import { ConnectorEventRelay } from './connector-event-relay';
import { ConnectorEventsRepository } from './connector-events.repository';

/** In worker processes, relays on a timer whatever a crashed writer left in the outbox. */
@Injectable()
class OutboxPoller implements OnApplicationBootstrap {
  constructor(
    private readonly relay: ConnectorEventRelay,
    private readonly env: ConnectorEnv,
  ) {}

  onApplicationBootstrap(): void {
    this.relay.poll(this.env.OUTBOX_POLL_MS);
  }
}

/** Events to the agent runtime: recorded with the state change they report, then published to `connector-events`. */
@Module({})
export class ConnectorEventsModule {
  static forRole(role: ProcessRole): DynamicModule {
    return {
      module: ConnectorEventsModule,
      imports: [BullModule.registerQueue({ name: SharedQueue.ConnectorEvents })],
      providers: [ConnectorEventsRepository, ConnectorEventRelay, ...(runsWorkers(role) ? [OutboxPoller] : [])],
      exports: [ConnectorEventsRepository, ConnectorEventRelay],
    };
  }
}
