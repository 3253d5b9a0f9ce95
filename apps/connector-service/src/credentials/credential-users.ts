import { Injectable } from '@nestjs/common';
import { PortRegistry } from '../common/port-registry';
import type { Transaction } from '@app/database';

/** Where a credential logs in, and as whom. */
export interface CredentialLogin {
  instanceUrl: string;
  username: string;
}

/** What becomes of the data sources using a credential when its login changes, as the data sources feature decides. */
export interface CredentialUsers {
  /** Whether a change of login from `before` to `after` discards the selections made with it (another account). */
  discardsSelections(before: CredentialLogin, after: CredentialLogin): boolean;
  /**
   * Locks the data sources using the credential until `transaction` ends; their ids. Taken before the credential's
   * own lock: a data source's change locks its row, then reads its credential under a lock.
   */
  hold(transaction: Transaction, credentialId: string): Promise<string[]>;
  /** In the credential change's transaction, those data sources held: their selections go. */
  discard(transaction: Transaction, dataSourceIds: string[]): Promise<void>;
  /** Once committed: their runs under way stop and what they ingested goes. */
  settle(dataSourceIds: string[]): Promise<void>;
}

/**
 * Where the data sources feature registers its CredentialUsers, so that a credential changed to another account
 * takes its data sources' selections with it, without credentials depending on data sources (which depend on them).
 */
@Injectable()
export class CredentialUsersRegistry extends PortRegistry<CredentialUsers> {
  constructor() {
    super('CredentialUsers: the data sources module is not loaded');
  }
}
