import { DynamicModule, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { ApprovalEnv } from '../approval-env';
import { ProcessRole, runsWorkers } from '@app/config';
import { DecisionRelay } from './decision-relay';
import { OutboxModule } from './outbox.module';

/** In worker processes, relays on a timer whatever a crashed writer left in the outbox. */
@Injectable()
class OutboxPoller implements OnApplicationBootstrap {
  constructor(
    private readonly relay: DecisionRelay,
    private readonly env: ApprovalEnv,
  ) {}

  onApplicationBootstrap(): void {
    this.relay.poll(this.env.OUTBOX_POLL_MS);
  }
}

@Module({})
export class OutboxPollerModule {
  static forRole(role: ProcessRole): DynamicModule {
    return { module: OutboxPollerModule, imports: [OutboxModule], providers: runsWorkers(role) ? [OutboxPoller] : [] };
  }
}
