import type { CredentialView } from '@app/contracts/views';
import type { CredentialEntity } from '../credential.entity';

/** A credential as the API shows it: never the password. */
export function credentialResponse(c: CredentialEntity): CredentialView {
  return {
    id: c.id,
    name: c.name,
    type: c.type,
    instanceUrl: c.instanceUrl,
    username: c.username,
    passwordConfigured: Boolean(c.passwordEncrypted),
    scope: c.scope,
    projectId: c.projectId,
    ...(c.scope === 'DataSource' ? { dataSourceId: c.dataSourceId } : {}),
    lastValidation:
      c.validatedAt && c.validationValid !== null
        ? { valid: c.validationValid, checkedAt: c.validatedAt.toISOString(), error: c.validationError }
        : null,
    createdBy: c.createdBy,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}
