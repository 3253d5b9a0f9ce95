import { Module } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';
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
      inject: [OutboundUrlPolicy, ConnectorEnv],
      useFactory: (outbound: OutboundUrlPolicy, env: ConnectorEnv) =>
        new HttpDocumentSystemAdapter(outbound.options, undefined, callLimitsFrom(env)),
    },
  ],
  exports: [DocumentSystemAdapter],
})
export class DocumentSystemModule {}
