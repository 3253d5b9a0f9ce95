import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PlatformAuthGuard } from './platform-auth.guard';
import { TokenVerifier } from './token-verifier';

@Global()
@Module({
  providers: [TokenVerifier, { provide: APP_GUARD, useClass: PlatformAuthGuard }],
  exports: [TokenVerifier],
})
export class AuthModule {}
