import { useState } from 'react';
import type { Credential } from '../api/types';
import { useConsole } from '../session/console-context';
import { ConnectButton } from '../connections/connect-button';
import { Button, SelectField } from '../ui/controls';
import { ErrorNotice, Notice } from '../ui/error-notice';
import { useAction, useLoad } from '../ui/hooks';

/** Validates a credential by opening a document-system session with one of the caller's OAuth connections. */
export function CredentialValidation({ credential, onChecked }: { credential: Credential; onChecked?: () => void }) {
  const { connector } = useConsole();
  const known = useLoad(
    async () => ({ connections: await connector.connections.list(), providers: await connector.providers.list() }),
    [connector],
  );
  const [connectionId, setConnectionId] = useState('');
  const [providerId, setProviderId] = useState('');
  const [valid, setValid] = useState(false);
  const action = useAction();
  const connections = (known.data?.connections ?? []).filter((c) => c.status === 'Active');
  const providers = known.data?.providers ?? [];
  const chosen = connectionId || connections[0]?.id || '';
  const nameOf = (id: string) => providers.find((p) => p.id === id)?.name ?? 'connector';

  const validate = () =>
    action.run(async () => {
      setValid(false);
      try {
        await connector.credentials.validate(credential.id, chosen);
        setValid(true);
      } finally {
        onChecked?.(); // the outcome is kept with the credential: show it
      }
    });

  if (known.loading && !known.data) return <p className="muted">Loading your connections…</p>;
  return (
    <div className="inline-form">
      {connections.length ? (
        <>
          <SelectField
            label="Check with your connection"
            value={chosen}
            onChange={setConnectionId}
            options={connections.map((c) => ({
              value: c.id,
              label: `${nameOf(c.providerId)} · connected ${new Date(c.createdAt).toLocaleString()}`,
            }))}
          />
          <Button kind="primary" onClick={validate} busy={action.busy} busyLabel="Checking…">
            Check credential
          </Button>
        </>
      ) : providers.length ? (
        <>
          <p className="muted">Checking a credential needs your own connection to the document system.</p>
          <SelectField
            label="Connector"
            value={providerId || providers[0].id}
            onChange={setProviderId}
            options={providers.map((p) => ({ value: p.id, label: p.name }))}
          />
          <ConnectButton providerId={providerId || providers[0].id} onConnected={() => void known.reload()} />
        </>
      ) : (
        <p className="muted">
          Register an OAuth connector first: checking a credential needs a connection to the document system.
        </p>
      )}
      {valid ? <Notice kind="success" title="Credentials are valid" /> : null}
      <ErrorNotice error={action.error ?? known.error} />
    </div>
  );
}
