import { Global, Module } from '@nestjs/common';
import { BaseEnv } from '@app/config';
import { SecretCipher } from './secret-cipher';

@Global()
@Module({
  providers: [
    {
      provide: SecretCipher,
      inject: [BaseEnv],
      useFactory: (env: BaseEnv) => new SecretCipher(env.ENCRYPTION_KEY),
    },
  ],
  exports: [SecretCipher],
})
export class CryptoModule {}
