import { Injectable } from '@nestjs/common';
import { isTenantAdmin, Principal } from '@app/auth';
import { CredentialsService } from '../credentials/credentials.service';
import { DocumentsRepository } from '../documents/documents.repository';
import { UnreferencedBlobs } from '../documents/unreferenced-blobs';
import { ConnectionSummary, ConnectionTokens } from '../document-system/connection-tokens.port';
import { SelectionReset } from '../selection/selection-reset';
import { SelectionService } from '../selection/selection.service';
import { DataSourceMemberEntity } from './data-source-member.entity';
import { DataSourceAccess } from './data-source-access';
import { DataSourceEntity } from './data-source.entity';
import { DataSourceException } from './data-source.exception';
import { DataSourcesRepository } from './data-sources.repository';
import { CreateDataSourceDto, UpdateDataSourceDto } from './dto/data-source-input.dto';

@Injectable()
export class DataSourcesService {
  constructor(
    private readonly repository: DataSourcesRepository,
    private readonly access: DataSourceAccess,
    private readonly credentials: CredentialsService,
    private readonly connections: ConnectionTokens,
    private readonly selection: SelectionService,
    private readonly selectionReset: SelectionReset,
    private readonly documents: DocumentsRepository,
    private readonly blobGarbage: UnreferencedBlobs,
  ) {}

  async create(principal: Principal, projectId: string, input: CreateDataSourceDto): Promise<DataSourceEntity> {
    const connection = await this.usableConnection(principal, input.connectionId);
    const credentialId = await this.credentialFor(principal, projectId, input);
    let source = await this.repository.transaction(async (manager) => {
      const created = await manager.save(
        manager.create(DataSourceEntity, {
          tenantId: principal.tenantId,
          projectId,
          name: input.name,
          credentialId,
          connectionId: connection.id,
          selection: [],
          ingestionStatus: 'NotConfigured',
          ...schedule(input.schedule),
          createdBy: principal.userId,
        }),
      );
      await manager.insert(DataSourceMemberEntity, { dataSourceId: created.id, userId: principal.userId, addedBy: principal.userId });
      return created;
    });
    if (input.selection) source = await this.selection.replace(source, input.selection, connection.subject);
    return source;
  }

  list(principal: Principal, projectId: string): Promise<DataSourceEntity[]> {
    return this.repository.listReadable(principal.tenantId, projectId, principal.userId, isTenantAdmin(principal));
  }

  get(principal: Principal, id: string): Promise<DataSourceEntity> {
    return this.access.readable(principal, id);
  }

  pendingExtractions(dataSourceId: string): Promise<number> {
    return this.documents.countPendingExtractions(dataSourceId);
  }

  /**
   * Changing the credential, or authorizing as another document-system identity, discards the
   * selection: folders seen as one user mean nothing for another.
   */
  async update(principal: Principal, id: string, input: UpdateDataSourceDto): Promise<DataSourceEntity> {
    const source = await this.access.readable(principal, id);
    const connection = input.connectionId ? await this.usableConnection(principal, input.connectionId) : null;
    if (input.credentialId && input.credentialId !== source.credentialId) {
      await this.credentials.usableLogin(principal, input.credentialId, source.projectId);
    }
    const previous = connection ? await this.connections.tenantConnection(source.tenantId, source.connectionId).catch(() => null) : null;
    const discard =
      (input.credentialId !== undefined && input.credentialId !== source.credentialId) ||
      (connection !== null && identityChanged(previous, connection, source.selectionSubject));

    await this.repository.transaction(async (manager) => {
      const changes: Partial<DataSourceEntity> = {};
      if (input.name !== undefined) changes.name = input.name;
      if (input.credentialId !== undefined) changes.credentialId = input.credentialId;
      if (connection) changes.connectionId = connection.id;
      if (input.schedule !== undefined) Object.assign(changes, schedule(input.schedule));
      if (Object.keys(changes).length) await manager.update(DataSourceEntity, { id }, changes);
      if (discard) await this.selectionReset.discard(source, manager);
    });
    const updated = await this.access.readable(principal, id);
    if (input.selection) return this.selection.replace(updated, input.selection, (connection ?? previous)?.subject ?? updated.selectionSubject);
    return updated;
  }

  /** Removes the data source with everything it ingested: documents, text, chunks, runs and blobs. */
  async remove(principal: Principal, id: string): Promise<void> {
    const source = await this.access.readable(principal, id);
    const hashes = await this.documents.contentHashes(source.id);
    await this.repository.sources.delete({ id: source.id });
    await this.blobGarbage.collect(hashes);
  }

  async members(principal: Principal, id: string): Promise<DataSourceMemberEntity[]> {
    await this.access.readable(principal, id);
    return this.repository.members.find({ where: { dataSourceId: id }, order: { createdAt: 'ASC' } });
  }

  async addMember(principal: Principal, id: string, userId: string): Promise<DataSourceMemberEntity> {
    await this.access.readable(principal, id);
    await this.repository.members.upsert({ dataSourceId: id, userId, addedBy: principal.userId }, { conflictPaths: ['dataSourceId', 'userId'], skipUpdateIfNoValuesChanged: true });
    return this.repository.members.findOneByOrFail({ dataSourceId: id, userId });
  }

  async removeMember(principal: Principal, id: string, userId: string): Promise<void> {
    await this.access.readable(principal, id);
    await this.repository.members.delete({ dataSourceId: id, userId });
  }

  private async usableConnection(principal: Principal, connectionId: string): Promise<ConnectionSummary> {
    const connection = await this.connections.ownConnection(principal, connectionId);
    if (connection.status === 'NeedsReauth') throw DataSourceException.connectionNotActive();
    return connection;
  }

  private async credentialFor(principal: Principal, projectId: string, input: CreateDataSourceDto): Promise<string> {
    if (input.credentialId) {
      await this.credentials.usableLogin(principal, input.credentialId, projectId);
      return input.credentialId;
    }
    if (!input.credential) throw DataSourceException.credentialRequired();
    // Created tenant-wide, as by POST /v1/credentials (see README: any member may create one inline).
    const created = await this.credentials.create(principal, input.credential);
    await this.credentials.usableLogin(principal, created.id, projectId);
    return created.id;
  }
}

function schedule(input: { intervalMinutes: number } | null | undefined): Pick<DataSourceEntity, 'scheduleIntervalMinutes' | 'nextScheduledSyncAt'> {
  if (!input) return { scheduleIntervalMinutes: null, nextScheduledSyncAt: null };
  return { scheduleIntervalMinutes: input.intervalMinutes, nextScheduledSyncAt: new Date(Date.now() + input.intervalMinutes * 60_000) };
}

/** Another person's connection, or the same provider telling us it is another document-system user. */
function identityChanged(previous: ConnectionSummary | null, next: ConnectionSummary, selectionSubject: string | null): boolean {
  if (previous && previous.userId !== next.userId) return true;
  const before = selectionSubject ?? previous?.subject ?? null;
  return before !== null && next.subject !== null && before !== next.subject;
}
