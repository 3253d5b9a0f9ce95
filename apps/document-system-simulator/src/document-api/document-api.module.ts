import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { SimulatorStore } from '../store/simulator-store';
import { DocumentApiController } from './document-api.controller';
import { FaultInjectionMiddleware } from './fault-injection.middleware';

@Module({
  controllers: [DocumentApiController],
  providers: [SimulatorStore, FaultInjectionMiddleware],
  exports: [SimulatorStore, FaultInjectionMiddleware],
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
