import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { canManageConnectors, isTenantAdmin, Principal } from '@app/auth';
import type { ExtractionProgressView } from '@app/contracts/views';
import { OutageRider, Transactions } from '@app/database';
import { DomainException } from '@app/errors';
import { CredentialException } from '../../credentials/credential.exception';
import { CredentialDraft, CredentialsService } from '../../credentials/credentials.service';
import { CreateCredentialDto } from '../../credentials/dto/credential-input.dto';
import { ConnectionSummary, ConnectionTokens } from '../../document-system/connection-tokens.port';
import { DocumentSystemLogin } from '../../document-system/document-system.adapter';
import { DataSourceAccess } from '../data-source-access';
import { DataSourceContentsRegistry } from '../data-source-contents';
import { DataSourceEntity } from '../data-source.entity';
import { DataSourceException } from '../data-source.exception';
import { DataSourceChanges, DataSourcesRepository } from '../data-sources.repository';
import { originOf } from '../instance-origin';
import { SelectionReset } from '../selection/selection-reset';
import { ResolvedSelection, SelectionService } from '../selection/selection.service';
import { SelectionDto } from '../selection/dto/selection.dto';
import { sameSelectionBasis, SELECTION_TRIES } from '../selection/selection-basis';
import { CreateDataSourceDto, UpdateDataSourceDto } from './dto/data-source-input.dto';
import { NewDataSources } from './new-data-sources';
import { selectsSomething } from '../selects-something';

/** How long a deletion may keep trying after a deadlock (or a database away) before it answers 503. */
const DELETE_RETRY_MS = 10_000;

@Injectable()
export class DataSourcesService {
  constructor(
    private readonly repository: DataSourcesRepository,
    private readonly transactions: Transactions,
    private readonly access: DataSourceAccess,
    private readonly credentials: CredentialsService,
    private readonly connections: ConnectionTokens,
    private readonly selection: SelectionService,
    private readonly selectionReset: SelectionReset,
    private readonly contents: DataSourceContentsRegistry,
    private readonly outages: OutageRider,
    private readonly newSources: NewDataSources,
  ) {}

  async create(principal: Principal, projectId: string, input: CreateDataSourceDto): Promise<DataSourceEntity> {
    if (input.credential) this.credentials.assertInstanceUrl(input.credential.instanceUrl, 'credential.instanceUrl');
    const connection = await this.usableConnection(principal, input.connectionId);
    const chosen = await this.credentialFor(principal, projectId, input);
    const source = { id: randomUUID(), tenantId: principal.tenantId, connectionId: connection.id, login: chosen.login };
    // Resolved before anything is stored, with the login it will use: refused, there is nothing to clean up.
    const resolved = input.selection ? await this.newSources.resolveSelection(source, input.selection) : null;
    const fields = { projectId, name: input.name, ...schedule(input.schedule), createdBy: principal.userId };
    return this.transactions.run(async (transaction) => {
      await this.connections.holdForUse(transaction, connection.id);
      // A manager's inline credential is stored with the data source: a create that fails leaves none behind.
      const credential =
        'toCreate' in chosen
          ? (await this.credentials.create(principal, chosen.toCreate, transaction)).id
          : chosen.credential;
      const selection = resolved && { resolved, subject: connection.subject };
      return this.newSources.store(transaction, source, fields, credential, selection);
    });
  }

  list(principal: Principal, projectId: string): Promise<DataSourceEntity[]> {
    return this.repository.listReadable(principal.tenantId, projectId, principal.userId, isTenantAdmin(principal));
  }

  get(principal: Principal, id: string): Promise<DataSourceEntity> {
    return this.access.readable(principal, id);
  }

  extractionProgress(dataSourceId: string): Promise<ExtractionProgressView> {
    return this.contents.registered.extractionProgress(dataSourceId);
  }

  /**
   * Changing the credential, or authorizing as another document-system identity, discards the
   * selection: folders seen as one user mean nothing for another. Any change by its creator or an admin
   * also records the origin its credential points at now: that is how they confirm a credential moved
   * to another document system. Left selecting nothing, or moved to another login (a new selection in the same
   * request too), its run stops and its documents go before it answers.
   */
  async update(principal: Principal, id: string, input: UpdateDataSourceDto): Promise<DataSourceEntity> {
    for (let tries = 1; ; tries++) {
      const saved = await this.tryUpdate(principal, id, input);
      if (saved) {
        const updated = await this.access.readable(principal, id);
        if (saved.discarded || !selectsSomething(updated.selection)) await this.selectionReset.settle(id);
        return updated;
      }
      if (tries === SELECTION_TRIES) throw DataSourceException.changedMeanwhile();
    }
  }

  /**
   * One try of `update`, from the data source as read now: whether it discarded the selection. Null, with nothing
   * saved, when the selection it resolved no longer fits: another change moved its credential or connection
   * meanwhile (SelectionBasis).
   */
  private async tryUpdate(principal: Principal, id: string, input: UpdateDataSourceDto): Promise<Saved | null> {
    const source = await this.access.manageable(principal, id);
    const connection = input.connectionId ? await this.usableConnection(principal, input.connectionId) : null;
    if (input.credentialId && input.credentialId !== source.credentialId) {
      await this.credentials.usableLogin(principal, input.credentialId, source.projectId, source.id);
    }
    // Only a connection that is gone counts as none: a database away must not make another person's look like none.
    const previous = connection ? await this.connectionOf(source) : null;
    const discard =
      (input.credentialId !== undefined && input.credentialId !== source.credentialId) ||
      (connection !== null && identityChanged(previous, connection, source.selectionSubject));
    const active = (connection ?? (await this.connectionOf(source)))?.status === 'Active';
    // Resolved before anything is saved: a refused selection leaves the data source as it was.
    const resolved = input.selection
      ? await this.selectionAfter(
          source,
          { credentialId: input.credentialId, connectionId: connection?.id },
          input.selection,
          discard,
        )
      : null;
    const subject = (connection ?? previous)?.subject ?? (discard ? null : source.selectionSubject);

    const saved = await this.transactions.run(async (transaction) => {
      if (connection) await this.connections.holdForUse(transaction, connection.id);
      if (input.credentialId && input.credentialId !== source.credentialId)
        await this.credentials.holdForUse(transaction, input.credentialId, source.projectId, source.id);
      const now = await this.repository.lockForChange(transaction, id);
      if (!now) throw DataSourceException.notFound();
      if (resolved && !sameSelectionBasis(source, now)) return null;
      const changes: DataSourceChanges = {};
      if (input.name !== undefined) changes.name = input.name;
      if (input.credentialId !== undefined) changes.credentialId = input.credentialId;
      if (connection) changes.connectionId = connection.id;
      if (input.schedule !== undefined) Object.assign(changes, schedule(input.schedule));
      await this.repository.update(transaction, id, changes);
      if (changes.credentialId)
        await this.credentials.dropDataSourceCredentialsBut(transaction, id, changes.credentialId);
      if ((await this.repository.recordInstanceOrigin(transaction, id)) === null) throw DataSourceException.notFound();
      if (discard) await this.selectionReset.discard(transaction, source.id);
      // A run that met the credential's move ended NeedsReauth; with the move confirmed, it may sync again.
      else if (now.ingestionStatus === 'NeedsReauth' && active) {
        if (selectsSomething(now.selection)) await this.repository.reauthorized(id, transaction);
        else await this.repository.moveStatus(id, 'NotConfigured', transaction);
      }
      if (resolved) await this.selection.save(transaction, id, resolved.marks, subject);
      return { discarded: discard };
    });
    if (saved && resolved && discard) await this.selection.keep(resolved);
    return saved;
  }

  /**
   * A selection resolved as the data source will be after a change: its credential at the origin the change
   * records, its connection; afresh when the change discards the selection (another identity's folders).
   */
  private async selectionAfter(
    source: DataSourceEntity,
    change: { credentialId?: string; connectionId?: string },
    selection: SelectionDto,
    discard: boolean,
  ): Promise<ResolvedSelection> {
    const credentialId = change.credentialId ?? source.credentialId;
    const { credential } = await this.credentials.loginFor(source.tenantId, credentialId);
    const after = {
      ...source,
      credentialId,
      connectionId: change.connectionId ?? source.connectionId,
      instanceOrigin: originOf(credential.instanceUrl),
    };
    if (discard) return this.selection.resolveAfresh(after, selection);
    return { marks: await this.selection.resolve(after, selection), folders: [] };
  }

  /** Removes the data source with everything it ingested: documents, text, chunks, runs, blobs and its own credential. */
  async remove(principal: Principal, id: string): Promise<void> {
    const source = await this.access.manageable(principal, id);
    // A text saved meanwhile locks its document, then the data source's row: the other order from this
    // deletion's cascade, so PostgreSQL may end the deletion as a deadlock's victim. It is tried again.
    const drop = () => this.outages.ride(() => this.repository.delete(source.id), DELETE_RETRY_MS);
    await this.contents.registered.removeWith(source.id, drop);
  }

  /** Its connection, or null when that is gone (404). */
  private connectionOf(source: DataSourceEntity): Promise<ConnectionSummary | null> {
    return this.connections.tenantConnection(source.tenantId, source.connectionId).catch((error: unknown) => {
      if (error instanceof DomainException && error.statusCode === 404) return null;
      throw error;
    });
  }

  private async usableConnection(principal: Principal, connectionId: string): Promise<ConnectionSummary> {
    const connection = await this.connections.ownConnection(principal, connectionId);
    if (connection.status === 'NeedsReauth') throw DataSourceException.connectionNotActive();
    return connection;
  }

  /**
   * The credential a new data source will use, nothing of it stored yet, with its login: an existing one's id; or
   * an inline one, to be created as by POST /v1/credentials when the caller may manage credentials (in the data
   * source's transaction), otherwise a draft that becomes the new data source's own.
   */
  private async credentialFor(
    principal: Principal,
    projectId: string,
    input: CreateDataSourceDto,
  ): Promise<ChosenCredential> {
    if (input.credentialId) {
      const { credential, password } = await this.credentials.usableLogin(principal, input.credentialId, projectId);
      return { credential: input.credentialId, login: loginOf(credential, password) };
    }
    if (!input.credential) throw DataSourceException.credentialRequired();
    if (!canManageConnectors(principal)) {
      const draft = this.credentials.draftForDataSource(principal, input.credential);
      return { credential: draft, login: loginOf(draft, input.credential.password) };
    }
    if (input.credential.scope === 'Project' && input.credential.projectId !== projectId)
      throw CredentialException.projectMismatch();
    return { toCreate: input.credential, login: loginOf(input.credential, input.credential.password) };
  }
}

/** A change saved, and whether it discarded the selection (another login: what the former one ingested goes). */
type Saved = { discarded: boolean };

/** An existing credential's id or a draft; or an inline credential to create. Its login either way. */
type ChosenCredential = { login: DocumentSystemLogin } & (
  { credential: string | CredentialDraft } | { toCreate: CreateCredentialDto }
);

const loginOf = (at: { instanceUrl: string; username: string }, password: string): DocumentSystemLogin => ({
  instanceUrl: at.instanceUrl,
  username: at.username,
  password,
});

function schedule(
  input: { intervalMinutes: number } | null | undefined,
): Pick<DataSourceEntity, 'scheduleIntervalMinutes' | 'nextScheduledSyncAt'> {
  if (!input) return { scheduleIntervalMinutes: null, nextScheduledSyncAt: null };
  return {
    scheduleIntervalMinutes: input.intervalMinutes,
    nextScheduledSyncAt: new Date(Date.now() + input.intervalMinutes * 60_000),
  };
}

/** Another person's connection, or the same provider telling us it is another document-system user. */
function identityChanged(
  previous: ConnectionSummary | null,
  next: ConnectionSummary,
  selectionSubject: string | null,
): boolean {
  if (previous && previous.userId !== next.userId) return true;
  const before = selectionSubject ?? previous?.subject ?? null;
  return before !== null && next.subject !== null && before !== next.subject;
}
