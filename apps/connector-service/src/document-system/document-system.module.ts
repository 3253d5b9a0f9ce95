import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { OutboundUrlPolicy } from '@app/outbound';
import { CommonModule } from '../common/common.module';
import { callLimitsFrom } from './call-limits';
import { DocumentSystemAdapter } from './document-system.adapter';
import { HttpDocumentSystemAdapter } from './http-document-system.adapter';

@Module({
  imports: [CommonModule],
  providers: [
    {
      provide: DocumentSystemAdapter,
      inject: [OutboundUrlPolicy, ConfigService],
      useFactory: (outbound: OutboundUrlPolicy, config: ConfigService) =>
        new HttpDocumentSystemAdapter(outbound.options, undefined, callLimitsFrom(config)),
    },
  ],
  exports: [DocumentSystemAdapter],
})
export class DocumentSystemModule {}
