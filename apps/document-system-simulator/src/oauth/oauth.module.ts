import { Module } from '@nestjs/common';
import { DocumentApiModule } from '../document-api/document-api.module';
import { OAuthAdminController } from './oauth-admin.controller';
import { OAuthState } from './oauth-clients';
import { OAuthController } from './oauth.controller';

@Module({
  imports: [DocumentApiModule],
  controllers: [OAuthController, OAuthAdminController],
  providers: [OAuthState],
  exports: [OAuthState],
})
export class OAuthModule {}
