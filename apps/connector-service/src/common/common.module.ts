import { Global, Module } from '@nestjs/common';
import { UrlPolicy } from './url-policy';

@Global()
@Module({ providers: [UrlPolicy], exports: [UrlPolicy] })
export class CommonModule {}
