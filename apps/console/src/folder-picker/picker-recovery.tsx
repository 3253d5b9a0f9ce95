import { useState } from 'react';
import { ApiError } from '../api/api-error';
import type { DataSource } from '../api/types';
import { useConsole } from '../session/console-context';
import { Reconnect } from '../connections/reconnect';
import { Button, SelectField } from '../ui/controls';
import { ErrorNotice } from '../ui/error-notice';
import { useAction, useLoad } from '../ui/hooks';

/**
 * The ways out of SPEC.md's folder-picker errors: "Credentials are invalid" → use another credential;
 * a generic authentication error → re-authenticate (a new connection for the same connector).
 */
export function PickerRecovery({
  error,
  dataSource,
  onChanged,
}: {
  error: ApiError;
  dataSource: DataSource;
  onChanged: (dataSource: DataSource) => void;
}) {
  if (error.code === 'CREDENTIALS_INVALID') return <OtherCredential dataSource={dataSource} onChanged={onChanged} />;
  if (error.code === 'REAUTH_REQUIRED')
    return <Reconnect dataSource={dataSource} onChanged={onChanged} label="Re-authenticate" />;
  return null;
}

function OtherCredential({
  dataSource,
  onChanged,
}: {
  dataSource: DataSource;
  onChanged: (dataSource: DataSource) => void;
}) {
  const { connector } = useConsole();
  const credentials = useLoad(() => connector.credentials.list(), [connector]);
  const others = (credentials.data ?? []).filter((c) => c.id !== dataSource.credentialId);
  const [chosen, setChosen] = useState('');
  const action = useAction();
  const use = () =>
    action.run(async () =>
      onChanged(await connector.dataSources.update(dataSource.id, { credentialId: chosen || others[0].id })),
    );
  if (!others.length)
    return (
      <p className="muted">
        No other credential is saved: an admin can rotate this credential's password under Credentials.
      </p>
    );
  return (
    <div className="recovery">
      <SelectField
        label="Use another credential"
        value={chosen || others[0].id}
        onChange={setChosen}
        options={others.map((c) => ({ value: c.id, label: `${c.name} (${c.username} at ${c.instanceUrl})` }))}
      />
      <Button kind="primary" onClick={use} busy={action.busy} busyLabel="Switching…">
        Use this credential
      </Button>
      <ErrorNotice error={action.error} />
    </div>
  );
}
