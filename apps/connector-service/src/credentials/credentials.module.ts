import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CredentialEntity } from './credential.entity';
import { CredentialsController } from './credentials.controller';
import { CredentialsService, CredentialUsage } from './credentials.service';

/** Until data sources exist, nothing uses a credential. */
class NoCredentialUsage extends CredentialUsage {
  async countDataSourcesUsing(): Promise<number> {
    return 0;
  }
}

@Module({
  imports: [TypeOrmModule.forFeature([CredentialEntity])],
  controllers: [CredentialsController],
  providers: [CredentialsService, { provide: CredentialUsage, useClass: NoCredentialUsage }],
  exports: [CredentialsService],
})
export class CredentialsModule {}
