import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthModule } from '@app/auth';
import { ProcessRole, validatedConfig } from '@app/config';
import { CryptoModule } from '@app/crypto';
import { DatabaseModule, PoolTurnsModule } from '@app/database';
import { UndeclaredQueryGuard } from '@app/errors';
import { HealthModule } from '@app/health';
import { LoggingModule } from '@app/logging';
import { MetricsModule } from '@app/metrics';
import { QueueDashboardModule, QueueModule } from '@app/queue';
import { ConsoleModule } from './console/console.module';
import { ConnectorEnv } from './connector-env';
import { ConnectionsModule } from './connections/connections.module';
import { CredentialsModule } from './credentials/credentials.module';
import { DataSourcesModule } from './data-sources/data-sources.module';
import { FoldersModule } from './data-sources/folders/folders.module';
import { DataSourceManagementModule } from './data-sources/management/data-source-management.module';
import { SelectionModule } from './data-sources/selection/selection.module';
import { DocumentsModule } from './documents/documents.module';
import { ProvidersModule } from './providers/providers.module';
import { SearchModule } from './search/search.module';
import { PassagesModule } from './search/passages/passages.module';
import { SyncApiModule } from './sync/api/sync-api.module';
import { SyncEngineModule } from './sync/engine/sync-engine.module';
import { SyncRunFilesModule } from './sync/run-files/sync-run-files.module';
import { connectorDatabase } from './database/connector-database';

export interface AppOptions {
  role: ProcessRole;
  /** Configuration that wins over process.env (tests). */
  env?: Record<string, unknown>;
  /** Where log lines go instead of stdout (tests that read them). */
  logDestination?: NodeJS.WritableStream;
}

@Module({})
export class AppModule {
  static forRoot({ role, env, logDestination }: AppOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        validatedConfig(ConnectorEnv, env),
        LoggingModule.forRoot('connector-service', logDestination),
        AuthModule,
        CryptoModule,
        DatabaseModule.forService(connectorDatabase),
        PoolTurnsModule,
        QueueModule.forRoot(),
        HealthModule.withStores(),
        MetricsModule.forRole(role),
        QueueDashboardModule,
        ProvidersModule,
        ConnectionsModule,
        CredentialsModule,
        DataSourcesModule,
        FoldersModule,
        SelectionModule,
        DataSourceManagementModule,
        SyncEngineModule.forRole(role),
        SyncApiModule.forRole(role),
        SyncRunFilesModule,
        DocumentsModule,
        SearchModule,
        PassagesModule,
        ConsoleModule,
      ],
      providers: [{ provide: APP_GUARD, useClass: UndeclaredQueryGuard }],
    };
  }
}
