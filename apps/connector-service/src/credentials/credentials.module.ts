import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSourceEntity } from '../data-sources/data-source.entity';
import { DocumentSystemModule } from '../document-system/document-system.module';
import { CredentialEntity } from './credential.entity';
import { CredentialsController } from './credentials.controller';
import { CredentialsRepository } from './credentials.repository';
import { CredentialsService, CredentialUsage } from './credentials.service';
import { DataSourceCredentialUsage } from './data-source-credential-usage';

@Module({
  imports: [TypeOrmModule.forFeature([CredentialEntity, DataSourceEntity]), DocumentSystemModule],
  controllers: [CredentialsController],
  providers: [
    CredentialsRepository,
    CredentialsService,
    { provide: CredentialUsage, useClass: DataSourceCredentialUsage },
  ],
  exports: [CredentialsService],
})
export class CredentialsModule {}
