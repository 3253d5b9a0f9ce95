import { DomainException } from '@app/errors';

export enum CredentialErrorCode {
  NotFound = 'CREDENTIAL_NOT_FOUND',
  InUse = 'CREDENTIAL_IN_USE',
  ProjectMismatch = 'CREDENTIAL_SCOPE_MISMATCH',
  SecretRequired = 'SECRET_REQUIRED',
}

export class CredentialException extends DomainException {
  static notFound() {
    return new CredentialException(404, CredentialErrorCode.NotFound, 'Credential not found');
  }

  static inUse(dataSourceCount: number) {
    return new CredentialException(
      409,
      CredentialErrorCode.InUse,
      `Credential is used by ${dataSourceCount} data source(s); remove them first`,
    );
  }

  /** Data sources of other projects would go on logging in with a credential limited to one project. */
  static usedByOtherProjects(dataSourceCount: number) {
    return new CredentialException(
      409,
      CredentialErrorCode.InUse,
      `Credential is used by ${dataSourceCount} data source(s) of other projects; remove them first`,
    );
  }

  /** The stored password never goes to an instance or account it was not entered for. */
  static secretRequired(changed: string[]) {
    const problem = `password is required when ${changed.join(' or ')} changes`;
    return new CredentialException(
      400,
      CredentialErrorCode.SecretRequired,
      `Changing ${changed.join(' and ')} needs the password in the same request`,
      [{ field: 'password', problems: [problem] }],
    );
  }

  static projectMismatch() {
    return new CredentialException(
      400,
      CredentialErrorCode.ProjectMismatch,
      'This credential is limited to another project',
    );
  }
}
