import { ApiError } from '../api/api-error';
import type { ConnectorApi } from '../api/connector-api';
import { Notice } from '../ui/error-notice';

/** What the document system said of a credential just saved. */
export type SaveCheck = 'valid' | 'invalid' | 'unchecked';

/**
 * Checks a credential just saved with the caller's first active connection, when there is one. Saving
 * never depends on it: a credential the document system refuses is kept, and flagged.
 */
export async function checkOnSave(connector: ConnectorApi, credentialId: string): Promise<SaveCheck> {
  try {
    const connection = (await connector.connections.list()).find((c) => c.status === 'Active');
    if (!connection) return 'unchecked';
    await connector.credentials.validate(credentialId, connection.id);
    return 'valid';
  } catch (error) {
    return error instanceof ApiError && error.code === 'CREDENTIALS_INVALID' ? 'invalid' : 'unchecked';
  }
}

export function SaveCheckNotice({ check }: { check: SaveCheck }) {
  if (check === 'valid') return <Notice kind="success" title="Saved and checked: the document system accepts it" />;
  if (check === 'invalid')
    return (
      <Notice kind="warning" title="Saved, but the document system refused it">
        <p>Credentials are invalid: check the instance URL, the username and the password (Rotate password).</p>
      </Notice>
    );
  return (
    <Notice title="Saved, not checked yet">
      <p>Checking needs your own connection to the document system: use Validate once you have one.</p>
    </Notice>
  );
}
