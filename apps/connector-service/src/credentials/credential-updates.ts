import { Injectable } from '@nestjs/common';
import { SecretCipher } from '@app/crypto';
import { Transaction, Transactions } from '@app/database';
import { CredentialEntity } from './credential.entity';
import { CredentialException } from './credential.exception';
import { CredentialLogin, CredentialUsersRegistry } from './credential-users';
import { CredentialsRepository } from './credentials.repository';
import { UpdateCredentialDto } from './dto/credential-input.dto';

/**
 * How often a change of login starts over because a data source was pointed at the credential between the locks
 * taken on its data sources and on itself. The last try waits for that data source's lock instead.
 */
const LOGIN_CHANGE_TRIES = 5;

/** A credential as replaced, and the data sources whose selections went with its former login. */
interface Replaced {
  credential: CredentialEntity;
  discarded: string[];
}

interface Try {
  /** Lock the data sources using it before the credential: its login is expected to change to another account. */
  holdFirst: boolean;
  last: boolean;
}

/**
 * Replaces credentials (PUT). A data source's selection is made as its credential's account: one changed to log
 * in as another account discards the selections of the data sources using it, as pointing them at another
 * credential does. A new password, or a new name, keeps them: the same account.
 */
@Injectable()
export class CredentialUpdates {
  constructor(
    private readonly credentials: CredentialsRepository,
    private readonly cipher: SecretCipher,
    private readonly transactions: Transactions,
    private readonly users: CredentialUsersRegistry,
  ) {}

  /**
   * The row is read under its lock: a PUT that went first is built upon (its password kept, its login the one
   * compared), never written over with what this one read before it (`read`, as its caller saw it). Selections
   * are discarded in the same transaction; once it commits, their runs stop and their documents go.
   */
  async replace(read: CredentialEntity, input: UpdateCredentialDto): Promise<CredentialEntity> {
    const users = this.users.registered;
    for (let tries = 1; ; tries++) {
      // A try that met a data source it had not held holds them all from then on, whatever the login it read.
      const holdFirst = tries > 1 || users.discardsSelections(read, loginOf(input));
      const replaced = await this.transactions.run((transaction) =>
        this.tryReplace(transaction, read.id, input, { holdFirst, last: tries === LOGIN_CHANGE_TRIES }),
      );
      if (!replaced) continue;
      if (replaced.discarded.length) await users.settle(replaced.discarded);
      return replaced.credential;
    }
  }

  /** Null, with nothing written, when a data source whose selection goes was not held (pointed at it meanwhile). */
  private async tryReplace(
    transaction: Transaction,
    id: string,
    input: UpdateCredentialDto,
    { holdFirst, last }: Try,
  ): Promise<Replaced | null> {
    const users = this.users.registered;
    const held = holdFirst ? await users.hold(transaction, id) : [];
    const credential = await this.credentials.lockForChange(transaction, id);
    if (!credential) throw CredentialException.notFound();
    const before = { instanceUrl: credential.instanceUrl, username: credential.username };
    this.apply(credential, input);
    const discarded = users.discardsSelections(before, credential)
      ? await this.credentials.dataSourcesUsing(transaction, id)
      : [];
    if (discarded.some((dataSourceId) => !held.includes(dataSourceId))) {
      if (!last) return null;
      await users.hold(transaction, id);
    }
    const outside = credential.projectId
      ? await this.credentials.countDataSourcesOutside(transaction, credential.id, credential.projectId)
      : 0;
    if (outside) throw CredentialException.usedByOtherProjects(outside);
    const saved = await this.credentials.save(credential, transaction);
    if (discarded.length) await users.discard(transaction, discarded);
    return { credential: saved, discarded };
  }

  /**
   * A PUT's body on the credential as stored; 400 SECRET_REQUIRED when its login changes without a password. A data
   * source's own credential keeps its scope and owner; the others take the scope sent.
   */
  private apply(credential: CredentialEntity, input: UpdateCredentialDto): void {
    const { instanceUrl, username } = loginOf(input);
    assertPasswordFollowsLogin(credential, { instanceUrl, username }, input.password);
    const loginChanged = credential.instanceUrl !== instanceUrl || credential.username !== username;
    Object.assign(credential, { name: input.name, instanceUrl, username });
    if (credential.scope !== 'DataSource')
      Object.assign(credential, { scope: input.scope, projectId: input.scope === 'Project' ? input.projectId! : null });
    if (input.password !== undefined) credential.passwordEncrypted = this.cipher.encrypt(input.password);
    // A new login has not been checked: the last check's outcome no longer says anything about it.
    if (input.password !== undefined || loginChanged)
      Object.assign(credential, { validatedAt: null, validationValid: null, validationError: null });
  }
}

export const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

const loginOf = (input: CredentialLogin): CredentialLogin => ({
  instanceUrl: withoutTrailingSlash(input.instanceUrl),
  username: input.username,
});

/** The stored password never goes to another instance or account than the one it was entered for. */
function assertPasswordFollowsLogin(stored: CredentialEntity, next: CredentialLogin, password: string | undefined) {
  if (password !== undefined) return;
  const changed = (['instanceUrl', 'username'] as const).filter((field) => next[field] !== stored[field]);
  if (changed.length) throw CredentialException.secretRequired(changed);
}
