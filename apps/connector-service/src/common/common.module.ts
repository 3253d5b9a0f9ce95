import { Global, Module } from '@nestjs/common';
import { OutboundUrlPolicy } from '@app/outbound';
import { outboundUrlPolicyProvider, UrlPolicy } from './url-policy';

@Global()
@Module({ providers: [outboundUrlPolicyProvider, UrlPolicy], exports: [OutboundUrlPolicy, UrlPolicy] })
export class CommonModule {}
