import { Injectable } from '@nestjs/common';
import { isTenantAdmin, Principal } from '@app/auth';
import { SecretCipher } from '@app/crypto';
import { Transaction } from '@app/database';
import { DomainException } from '@app/errors';
import { UrlPolicy } from '../common/url-policy';
import { ConnectionTokens } from '../document-system/connection-tokens.port';
import { DocumentSystemAdapter } from '../document-system/document-system.adapter';
import { DocumentSystemErrorCode } from '../document-system/document-system.exception';
import { CredentialEntity } from './credential.entity';
import { CredentialException } from './credential.exception';
import { CredentialUpdates, withoutTrailingSlash } from './credential-updates';
import { CredentialReach, CredentialsRepository } from './credentials.repository';
import { DataSourceManagersRegistry } from './data-source-managers';
import { CreateCredentialDto, UpdateCredentialDto } from './dto/credential-input.dto';

/** A credential not saved yet, its password already encrypted: a data source's own, saved with it. */
export type CredentialDraft = Omit<
  CredentialEntity,
  'id' | 'dataSourceId' | 'createdAt' | 'updatedAt' | 'validatedAt' | 'validationValid' | 'validationError'
>;

@Injectable()
export class CredentialsService {
  constructor(
    private readonly credentials: CredentialsRepository,
    private readonly cipher: SecretCipher,
    private readonly urlPolicy: UrlPolicy,
    private readonly adapter: DocumentSystemAdapter,
    private readonly connections: ConnectionTokens,
    private readonly dataSourceManagers: DataSourceManagersRegistry,
    private readonly updates: CredentialUpdates,
  ) {}

  /** 400 when the outbound URL policy refuses the instance URL, naming `field`. */
  assertInstanceUrl(instanceUrl: string, field = 'instanceUrl'): void {
    this.urlPolicy.assertAllowed({ [field]: instanceUrl });
  }

  /** Saves it on its own, or in `transaction` (a data source created with it: both stored, or neither). */
  create(principal: Principal, input: CreateCredentialDto, transaction?: Transaction): Promise<CredentialEntity> {
    this.assertInstanceUrl(input.instanceUrl);
    return this.credentials.save(this.draft(principal, input), transaction);
  }

  /** A plain user's inline credential: it belongs to the data source being created, whatever scope was sent. */
  draftForDataSource(principal: Principal, input: CreateCredentialDto): CredentialDraft {
    this.assertInstanceUrl(input.instanceUrl, 'credential.instanceUrl');
    return { ...this.draft(principal, input), scope: 'DataSource', projectId: null };
  }

  /** Saves a draft as the data source's own credential (deleted with it); returns its id. */
  saveForDataSource(transaction: Transaction, draft: CredentialDraft, dataSourceId: string): Promise<string> {
    return this.credentials.saveForDataSource(transaction, draft, dataSourceId);
  }

  /** The data source now uses `keptId`: its other own credentials go, nothing else may use them. */
  async dropDataSourceCredentialsBut(transaction: Transaction, dataSourceId: string, keptId: string): Promise<void> {
    await this.credentials.deleteOwnedByDataSourceBut(transaction, dataSourceId, keptId);
  }

  list(principal: Principal): Promise<CredentialEntity[]> {
    return this.credentials.visible(principal.tenantId, principal.userId, isTenantAdmin(principal));
  }

  async get(principal: Principal, id: string): Promise<CredentialEntity> {
    const credential = await this.credentials.findVisible(
      principal.tenantId,
      id,
      principal.userId,
      isTenantAdmin(principal),
    );
    if (!credential) throw CredentialException.notFound();
    return credential;
  }

  /** Replaces it (CredentialUpdates); changed to another account, its data sources' selections go. */
  async update(principal: Principal, id: string, input: UpdateCredentialDto): Promise<CredentialEntity> {
    const visible = await this.changeable(principal, id);
    this.assertInstanceUrl(input.instanceUrl);
    return this.updates.replace(visible, input);
  }

  async remove(principal: Principal, id: string): Promise<void> {
    const credential = await this.changeable(principal, id);
    if (await this.credentials.deleteUnused(credential.id)) return;
    throw CredentialException.inUse(Math.max(1, await this.credentials.countDataSourcesUsing(credential.id)));
  }

  /**
   * The credential a data source of `projectId` may use, with its password in the clear (never returned).
   * A data source's own credential is usable by that data source alone (`dataSourceId`): 404 elsewhere.
   */
  async usableLogin(principal: Principal, id: string, projectId: string, dataSourceId?: string) {
    const credential = await this.get(principal, id);
    assertReaches(credential, projectId, dataSourceId);
    return { credential, password: this.cipher.decrypt(credential.passwordEncrypted) };
  }

  /**
   * Keeps the credential from being deleted or narrowed to another project until `transaction` ends, for a data
   * source of `projectId` being pointed at it; checked again as it stands now (404 when gone, as `usableLogin`).
   */
  async holdForUse(transaction: Transaction, id: string, projectId: string, dataSourceId?: string): Promise<void> {
    const held = await this.credentials.holdForUse(transaction, id);
    if (!held) throw CredentialException.notFound();
    assertReaches(held, projectId, dataSourceId);
  }

  /** Loads by id inside the tenant, for workers that act without a caller. */
  async loginFor(tenantId: string, id: string) {
    const credential = await this.credentials.findInTenant(tenantId, id);
    if (!credential) throw CredentialException.notFound();
    return { credential, password: this.cipher.decrypt(credential.passwordEncrypted) };
  }

  /** Opens a document-system session with the credential; 422 CREDENTIALS_INVALID when it is refused. */
  async validate(principal: Principal, id: string, connectionId: string): Promise<{ valid: true }> {
    const credential = await this.changeable(principal, id);
    await this.connections.ownConnection(principal, connectionId);
    try {
      await this.adapter.openSession(
        principal.tenantId,
        {
          instanceUrl: credential.instanceUrl,
          username: credential.username,
          password: this.cipher.decrypt(credential.passwordEncrypted),
        },
        this.connections.tokenSource(connectionId),
        { fresh: true },
      );
    } catch (error) {
      // Only the document system's refusal of the login says something about the credential; other failures do not.
      if (error instanceof DomainException && error.code === DocumentSystemErrorCode.CredentialsInvalid)
        await this.credentials.recordValidation(credential, false, error.message);
      throw error;
    }
    await this.credentials.recordValidation(credential, true, null);
    return { valid: true };
  }

  /**
   * A credential the caller sees, to change, delete or check (a check records its outcome on it). A data
   * source's own is part of that data source: only those who may manage it touch it (403 for its other members).
   */
  private async changeable(principal: Principal, id: string): Promise<CredentialEntity> {
    const credential = await this.get(principal, id);
    // A data source's own credential keeps its scope and its data source for its whole life.
    if (credential.scope === 'DataSource')
      await this.dataSourceManagers.registered.assertMayManage(principal, credential.dataSourceId!);
    return credential;
  }

  private draft(principal: Principal, input: CreateCredentialDto): CredentialDraft {
    return {
      tenantId: principal.tenantId,
      name: input.name,
      type: input.type,
      instanceUrl: withoutTrailingSlash(input.instanceUrl),
      username: input.username,
      passwordEncrypted: this.cipher.encrypt(input.password),
      scope: input.scope,
      projectId: input.scope === 'Project' ? input.projectId! : null,
      createdBy: principal.userId,
    };
  }
}

function assertReaches(credential: CredentialReach, projectId: string, dataSourceId: string | undefined): void {
  if (credential.scope === 'DataSource' && credential.dataSourceId !== dataSourceId)
    throw CredentialException.notFound();
  if (credential.scope === 'Project' && credential.projectId !== projectId) throw CredentialException.projectMismatch();
}
