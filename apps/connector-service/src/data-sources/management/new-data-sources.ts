import { Injectable } from '@nestjs/common';
import { Transaction } from '@app/database';
import { CredentialDraft, CredentialsService } from '../../credentials/credentials.service';
import { ConnectionTokens } from '../../document-system/connection-tokens.port';
import { DocumentSystemAdapter, DocumentSystemLogin } from '../../document-system/document-system.adapter';
import { DataSourceMembersRepository } from '../data-source-members.repository';
import { DataSourceEntity } from '../data-source.entity';
import { DataSourcesRepository } from '../data-sources.repository';
import { FolderLocator } from '../folders/folder-locator';
import { originOf } from '../instance-origin';
import { ResolvedSelection, SelectionService } from '../selection/selection.service';
import { SelectionDto } from '../selection/dto/selection.dto';

/** A data source about to be created: its id, chosen up front, and how it will reach the document system. */
export interface NewDataSource {
  id: string;
  tenantId: string;
  connectionId: string;
  /** Its credential's login, which may not be stored yet (an inline credential is saved with the data source). */
  login: DocumentSystemLogin;
}

/** What its creator gave it. */
export type NewDataSourceFields = Pick<
  DataSourceEntity,
  'projectId' | 'name' | 'scheduleIntervalMinutes' | 'nextScheduledSyncAt' | 'createdBy'
>;

/** A selection resolved for a new data source, and as whom the document system showed its folders. */
export interface NewSelection {
  resolved: ResolvedSelection;
  subject: string | null;
}

/**
 * Creates data sources. The selection sent with one is resolved before anything of it is stored, so a refusal
 * leaves nothing to clean up; it is stored in the data source's own transaction, with the folders it met.
 */
@Injectable()
export class NewDataSources {
  constructor(
    private readonly repository: DataSourcesRepository,
    private readonly members: DataSourceMembersRepository,
    private readonly credentials: CredentialsService,
    private readonly adapter: DocumentSystemAdapter,
    private readonly connections: ConnectionTokens,
    private readonly selection: SelectionService,
    private readonly locator: FolderLocator,
  ) {}

  resolveSelection(source: NewDataSource, input: SelectionDto): Promise<ResolvedSelection> {
    const session = () =>
      this.adapter.openSession(source.tenantId, source.login, this.connections.tokenSource(source.connectionId));
    return this.selection.resolveThrough(source.id, session, input);
  }

  /** Stores it with its creator as first member, a draft credential as its own, and its selection if any. */
  async store(
    transaction: Transaction,
    source: NewDataSource,
    fields: NewDataSourceFields,
    credential: string | CredentialDraft,
    selection: NewSelection | null,
  ): Promise<DataSourceEntity> {
    if (typeof credential === 'string') await this.credentials.holdForUse(transaction, credential, fields.projectId);
    // A draft is saved as the data source's own credential, deleted with it.
    const credentialId =
      typeof credential === 'string'
        ? credential
        : await this.credentials.saveForDataSource(transaction, credential, source.id);
    const created = await this.repository.create(transaction, {
      ...fields,
      id: source.id,
      tenantId: source.tenantId,
      credentialId,
      connectionId: source.connectionId,
      // Its creator chose this instance: their tokens go there only.
      instanceOrigin: originOf(source.login.instanceUrl),
      selection: [],
      ingestionStatus: 'NotConfigured',
      selectionSubject: null,
    });
    await this.members.addCreator(transaction, source.id, fields.createdBy);
    if (!selection) return created;
    await this.selection.save(transaction, source.id, selection.resolved.marks, selection.subject);
    await this.locator.keep(selection.resolved.folders, transaction);
    return this.repository.get(source.id, transaction);
  }
}
