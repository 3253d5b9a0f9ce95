import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Principal } from '@app/auth';
import { SecretCipher } from '@app/crypto';
import { UrlPolicy } from '../common/url-policy';
import { ConnectionTokens } from '../document-system/connection-tokens.port';
import { DocumentSystemAdapter } from '../document-system/document-system.adapter';
import { CredentialEntity } from './credential.entity';
import { CredentialException } from './credential.exception';
import { CreateCredentialDto, UpdateCredentialDto } from './dto/credential-input.dto';

/** Counts the data sources that use a credential; the data-sources feature provides it. */
export abstract class CredentialUsage {
  abstract countDataSourcesUsing(credentialId: string): Promise<number>;
}

@Injectable()
export class CredentialsService {
  constructor(
    @InjectRepository(CredentialEntity) private readonly credentials: Repository<CredentialEntity>,
    private readonly cipher: SecretCipher,
    private readonly usage: CredentialUsage,
    private readonly urlPolicy: UrlPolicy,
    private readonly adapter: DocumentSystemAdapter,
    private readonly connections: ConnectionTokens,
  ) {}

  create(principal: Principal, input: CreateCredentialDto): Promise<CredentialEntity> {
    this.urlPolicy.assertAllowed({ instanceUrl: input.instanceUrl });
    return this.credentials.save(
      this.credentials.create({
        tenantId: principal.tenantId,
        name: input.name,
        type: input.type,
        instanceUrl: input.instanceUrl.replace(/\/+$/, ''),
        username: input.username,
        passwordEncrypted: this.cipher.encrypt(input.password),
        scope: input.scope,
        projectId: input.scope === 'Project' ? input.projectId! : null,
        createdBy: principal.userId,
      }),
    );
  }

  list(principal: Principal): Promise<CredentialEntity[]> {
    return this.credentials.find({ where: { tenantId: principal.tenantId }, order: { createdAt: 'ASC' } });
  }

  async get(principal: Principal, id: string): Promise<CredentialEntity> {
    const credential = await this.credentials.findOneBy({ id, tenantId: principal.tenantId });
    if (!credential) throw CredentialException.notFound();
    return credential;
  }

  async update(principal: Principal, id: string, input: UpdateCredentialDto): Promise<CredentialEntity> {
    const credential = await this.get(principal, id);
    this.urlPolicy.assertAllowed({ instanceUrl: input.instanceUrl });
    Object.assign(credential, {
      name: input.name,
      instanceUrl: input.instanceUrl.replace(/\/+$/, ''),
      username: input.username,
      scope: input.scope,
      projectId: input.scope === 'Project' ? input.projectId! : null,
    });
    if (input.password !== undefined) credential.passwordEncrypted = this.cipher.encrypt(input.password);
    return this.credentials.save(credential);
  }

  async remove(principal: Principal, id: string): Promise<void> {
    const credential = await this.get(principal, id);
    const users = await this.usage.countDataSourcesUsing(credential.id);
    if (users > 0) throw CredentialException.inUse(users);
    await this.credentials.delete({ id: credential.id });
  }

  /** The credential a data source of `projectId` may use, with its password in the clear (never returned). */
  async usableLogin(principal: Principal, id: string, projectId: string) {
    const credential = await this.get(principal, id);
    if (credential.scope === 'Project' && credential.projectId !== projectId) throw CredentialException.projectMismatch();
    return { credential, password: this.cipher.decrypt(credential.passwordEncrypted) };
  }

  /** Loads by id inside the tenant, for workers that act without a caller. */
  async loginFor(tenantId: string, id: string) {
    const credential = await this.credentials.findOneBy({ id, tenantId });
    if (!credential) throw CredentialException.notFound();
    return { credential, password: this.cipher.decrypt(credential.passwordEncrypted) };
  }

  /** Opens a document-system session with the credential; 422 CREDENTIALS_INVALID when it is refused. */
  async validate(principal: Principal, id: string, connectionId: string): Promise<{ valid: true }> {
    const credential = await this.get(principal, id);
    await this.connections.ownConnection(principal, connectionId);
    await this.adapter.openSession(
      { instanceUrl: credential.instanceUrl, username: credential.username, password: this.cipher.decrypt(credential.passwordEncrypted) },
      this.connections.tokenSource(connectionId),
    );
    return { valid: true };
  }
}
