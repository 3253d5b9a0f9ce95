import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { DocumentApiModule } from '../document-api/document-api.module';
import { OAuthModule } from '../oauth/oauth.module';
import { SimulatorStateService } from './simulator-state.service';
import { StateSavingMiddleware } from './state-saving.middleware';

@Module({
  imports: [DocumentApiModule, OAuthModule],
  providers: [SimulatorStateService, StateSavingMiddleware],
})
export class SimulatorStateModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(StateSavingMiddleware).forRoutes('*path');
  }
}
