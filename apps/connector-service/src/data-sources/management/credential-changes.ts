import { Injectable, OnModuleInit } from '@nestjs/common';
import { Transaction } from '@app/database';
import { CredentialLogin, CredentialUsers, CredentialUsersRegistry } from '../../credentials/credential-users';
import { DataSourcesRepository } from '../data-sources.repository';
import { originOf } from '../instance-origin';
import { SelectionReset } from '../selection/selection-reset';

/** What happens to data sources when the credential they use is changed to log in as another account. */
@Injectable()
export class CredentialChanges implements CredentialUsers, OnModuleInit {
  constructor(
    private readonly registry: CredentialUsersRegistry,
    private readonly repository: DataSourcesRepository,
    private readonly selection: SelectionReset,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  /**
   * Another username, or another address at the same origin: folders picked as one account mean nothing for
   * another. A move to another origin is the origin rule's (instance-origin.ts): its data sources wait in
   * NeedsReauth until their creator confirms it, and keep their selection then.
   */
  discardsSelections(before: CredentialLogin, after: CredentialLogin): boolean {
    if (before.username !== after.username) return true;
    return before.instanceUrl !== after.instanceUrl && originOf(before.instanceUrl) === originOf(after.instanceUrl);
  }

  hold(transaction: Transaction, credentialId: string): Promise<string[]> {
    return this.repository.lockUsingCredential(transaction, credentialId);
  }

  async discard(transaction: Transaction, dataSourceIds: string[]): Promise<void> {
    for (const id of dataSourceIds) await this.selection.discard(transaction, id);
  }

  async settle(dataSourceIds: string[]): Promise<void> {
    for (const id of dataSourceIds) await this.selection.settle(id);
  }
}
