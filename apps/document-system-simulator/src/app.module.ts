import { DynamicModule, Module } from '@nestjs/common';
import { validatedConfig } from '@app/config';
import { HealthModule } from '@app/health';
import { LoggingModule } from '@app/logging';
import { DocumentApiModule } from './document-api/document-api.module';
import { OAuthModule } from './oauth/oauth.module';
import { SimulatorEnv } from './simulator-env';

export interface SimulatorOptions {
  env?: Record<string, unknown>;
}

@Module({})
export class AppModule {
  static forRoot({ env }: SimulatorOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [validatedConfig(SimulatorEnv, env), LoggingModule.forRoot('document-system-simulator'), HealthModule.standalone(), DocumentApiModule, OAuthModule],
    };
  }
}
