import { Module } from '@nestjs/common';
import { OutboundUrlPolicy } from '@app/outbound';
import { outboundUrlPolicyProvider, UrlPolicy } from './url-policy';

/** The outbound URL policy: which addresses the connector may call, and the check of URLs an admin saves. */
@Module({ providers: [outboundUrlPolicyProvider, UrlPolicy], exports: [OutboundUrlPolicy, UrlPolicy] })
export class CommonModule {}
