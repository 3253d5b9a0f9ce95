import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CommonModule } from '../common/common.module';
import { OAuthCallbackUrl } from './oauth-callback-url';
import { OAuthProviderEntity } from './oauth-provider.entity';
import { ProviderSecretEntity } from './provider-secret.entity';
import { ProviderSecretsRepository } from './provider-secrets.repository';
import { ProvidersController } from './providers.controller';
import { ProvidersRepository } from './providers.repository';
import { ProvidersService } from './providers.service';

/** The tenant's OAuth client registrations and their versioned secrets. */
@Module({
  imports: [TypeOrmModule.forFeature([OAuthProviderEntity, ProviderSecretEntity]), CommonModule],
  controllers: [ProvidersController],
  providers: [ProvidersRepository, ProvidersService, ProviderSecretsRepository, OAuthCallbackUrl],
  exports: [ProvidersService, ProviderSecretsRepository, OAuthCallbackUrl],
})
export class ProvidersModule {}
