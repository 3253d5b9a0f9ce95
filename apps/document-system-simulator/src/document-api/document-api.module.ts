import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { AdminApiController } from '../admin-api/admin-api.controller';
import { AdminTreeController } from '../admin-api/admin-tree.controller';
import { SimulatorStore } from '../store/simulator-store';
import { DocumentApiController } from './document-api.controller';
import { FaultInjectionMiddleware } from './fault-injection.middleware';

@Module({
  controllers: [DocumentApiController, AdminApiController, AdminTreeController],
  providers: [SimulatorStore, FaultInjectionMiddleware],
  exports: [SimulatorStore],
})
export class DocumentApiModule implements NestModule {
  constructor(private readonly faults: FaultInjectionMiddleware) {}

  configure(consumer: MiddlewareConsumer): void {
    // The same instance as the admin API's, so reseeding reaches it.
    consumer
      .apply((req: never, res: never, next: () => void) => this.faults.use(req, res, next))
      .forRoutes('api/v1/*path');
  }
}
