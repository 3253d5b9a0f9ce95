import { Global, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { SecretCipher } from './secret-cipher';

@Global()
@Module({
  providers: [
    {
      provide: SecretCipher,
      inject: [ConfigService],
      useFactory: (config: ConfigService) => new SecretCipher(config.getOrThrow<string>('ENCRYPTION_KEY')),
    },
  ],
  exports: [SecretCipher],
})
export class CryptoModule {}
