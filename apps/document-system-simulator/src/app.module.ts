import { DynamicModule, Module } from '@nestjs/common';
import { validatedConfig } from '@app/config';
import { HealthModule } from '@app/health';
import { LoggingModule } from '@app/logging';
import { AdminApiModule } from './admin-api/admin-api.module';
import { DocumentApiModule } from './document-api/document-api.module';
import { OAuthModule } from './oauth/oauth.module';
import { SimulatorEnv } from './simulator-env';
import { SimulatorStateModule } from './state/simulator-state.module';

/** A sync reads the document API once per folder page and file: at info that would drown everything else. */
const DOCUMENT_API_READS = /^\/api\/v1\//;

export interface SimulatorOptions {
  env?: Record<string, unknown>;
}

@Module({})
export class AppModule {
  static forRoot({ env }: SimulatorOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        validatedConfig(SimulatorEnv, env),
        LoggingModule.forRoot('document-system-simulator', undefined, { quietReads: [DOCUMENT_API_READS] }),
        HealthModule.standalone(),
        DocumentApiModule,
        AdminApiModule,
        OAuthModule,
        SimulatorStateModule,
      ],
    };
  }
}
