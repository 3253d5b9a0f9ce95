import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OAuthCallbackUrl } from './oauth-callback-url';
import { OAuthProviderEntity } from './oauth-provider.entity';
import { ProviderSecretEntity } from './provider-secret.entity';
import { ProviderSecretsRepository } from './provider-secrets.repository';
import { DataSourceProviderUsage, ProviderUsage } from './provider-usage';
import { ProvidersController } from './providers.controller';
import { ProvidersService } from './providers.service';

/** The tenant's OAuth client registrations and their versioned secrets. */
@Module({
  imports: [TypeOrmModule.forFeature([OAuthProviderEntity, ProviderSecretEntity])],
  controllers: [ProvidersController],
  providers: [
    ProvidersService,
    ProviderSecretsRepository,
    OAuthCallbackUrl,
    { provide: ProviderUsage, useClass: DataSourceProviderUsage },
  ],
  exports: [ProvidersService, ProviderSecretsRepository, OAuthCallbackUrl],
})
export class ProvidersModule {}
