import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CommonModule } from '../common/common.module';
import { ConnectionsModule } from '../connections/connections.module';
import { DocumentSystemModule } from '../document-system/document-system.module';
import { CredentialEntity } from './credential.entity';
import { CredentialsController } from './credentials.controller';
import { CredentialsRepository } from './credentials.repository';
import { CredentialsService } from './credentials.service';
import { CredentialUpdates } from './credential-updates';
import { CredentialUsersRegistry } from './credential-users';
import { DataSourceManagersRegistry } from './data-source-managers';

@Module({
  imports: [TypeOrmModule.forFeature([CredentialEntity]), CommonModule, ConnectionsModule, DocumentSystemModule],
  controllers: [CredentialsController],
  providers: [
    CredentialsRepository,
    CredentialsService,
    CredentialUpdates,
    DataSourceManagersRegistry,
    CredentialUsersRegistry,
  ],
  exports: [CredentialsService, DataSourceManagersRegistry, CredentialUsersRegistry],
})
export class CredentialsModule {}
