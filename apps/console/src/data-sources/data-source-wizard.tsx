import { FormEvent, useState } from 'react';
import { ApiError } from '../api/api-error';
import type { NewDataSource } from '../api/connector-api';
import type { DataSource } from '../api/types';
import { useConsole } from '../session/console-context';
import { navigate } from '../router/router';
import { ConnectButton } from '../connections/connect-button';
import { credentialInput, CredentialDraft, CredentialFields, EMPTY_CREDENTIAL } from '../credentials/credential-fields';
import { FolderPicker } from '../folder-picker/folder-picker';
import { PickerRecovery } from '../folder-picker/picker-recovery';
import { Button, SelectField, Spinner, TextField } from '../ui/controls';
import { ErrorNotice, Notice } from '../ui/error-notice';
import { useAction, useLoad } from '../ui/hooks';

type Step = 'details' | 'connect' | 'folders';
const STEPS: Array<[Step, string]> = [
  ['details', 'Name and credential'],
  ['connect', 'Connect'],
  ['folders', 'Folders'],
];

/** New data source: name and credential, the OAuth popup, then the folder picker. */
export function DataSourceWizard() {
  const { connector, projectId } = useConsole();
  const known = useLoad(
    async () => ({
      providers: await connector.providers.list(),
      credentials: await connector.credentials.list(),
      connections: await connector.connections.list(),
    }),
    [connector],
  );
  const [step, setStep] = useState<Step>('details');
  const [name, setName] = useState('');
  const [providerId, setProviderId] = useState('');
  const [credentialMode, setCredentialMode] = useState<'saved' | 'new'>('saved');
  const [credentialId, setCredentialId] = useState('');
  const [draft, setDraft] = useState<CredentialDraft>(EMPTY_CREDENTIAL);
  const [dataSource, setDataSource] = useState<DataSource | null>(null);
  const create = useAction();

  if (known.error)
    return (
      <ErrorNotice error={known.error}>
        <Button onClick={() => void known.reload()}>Try again</Button>
      </ErrorNotice>
    );
  if (!known.data) return <Spinner label="Loading connectors and credentials…" />;
  const { providers, credentials, connections } = known.data;
  const provider = providerId || providers[0]?.id || '';
  const mode = credentials.length ? credentialMode : 'new';
  const savedCredential = credentialId || credentials[0]?.id || '';
  const existing = connections.find((c) => c.providerId === provider && c.status === 'Active');
  const problems = create.error instanceof ApiError ? create.error.fieldProblems : {};

  const next = (event: FormEvent) => {
    event.preventDefault();
    create.clear();
    setStep('connect');
  };
  const connected = (connectionId: string) =>
    create.run(async () => {
      const input: NewDataSource = {
        name,
        connectionId,
        ...(mode === 'saved' ? { credentialId: savedCredential } : { credential: credentialInput(draft, projectId) }),
      };
      try {
        setDataSource(await connector.dataSources.create(projectId, input));
        setStep('folders');
      } catch (error) {
        if (error instanceof ApiError && error.code === 'VALIDATION_FAILED') setStep('details');
        throw error;
      }
    });

  return (
    <section>
      <h1>New data source</h1>
      <ol className="steps" aria-label="Steps">
        {STEPS.map(([key, label], i) => (
          <li key={key} aria-current={step === key ? 'step' : undefined} className={step === key ? 'step-current' : ''}>
            {i + 1}. {label}
          </li>
        ))}
      </ol>
      {step === 'details' ? (
        <form className="card form" onSubmit={next} aria-label="Name and credential" noValidate>
          {!providers.length ? (
            <Notice kind="warning" title="No OAuth connector is registered">
              An admin registers one under OAuth connectors first.
            </Notice>
          ) : null}
          <TextField label="Data source name" value={name} onChange={setName} problems={problems.name} required />
          <SelectField
            label="OAuth connector"
            value={provider}
            onChange={setProviderId}
            options={providers.map((p) => ({ value: p.id, label: p.name }))}
            required
          />
          <fieldset className="choice">
            <legend>Document-system credential</legend>
            <label>
              <input
                type="radio"
                name="credential-mode"
                checked={mode === 'saved'}
                onChange={() => setCredentialMode('saved')}
                disabled={!credentials.length}
              />{' '}
              Use a saved credential
            </label>
            <label>
              <input
                type="radio"
                name="credential-mode"
                checked={mode === 'new'}
                onChange={() => setCredentialMode('new')}
              />{' '}
              Enter a new credential
            </label>
          </fieldset>
          {mode === 'saved' ? (
            <SelectField
              label="Saved credential"
              value={savedCredential}
              onChange={setCredentialId}
              options={credentials.map((c) => ({
                value: c.id,
                label: `${c.name} (${c.username} at ${c.instanceUrl})`,
              }))}
              problems={problems.credentialId}
            />
          ) : (
            <CredentialFields draft={draft} onChange={setDraft} problems={problems} prefix="credential." />
          )}
          <ErrorNotice error={create.error} />
          <Button type="submit" kind="primary" disabled={!name.trim() || !provider}>
            Next: connect
          </Button>
        </form>
      ) : null}
      {step === 'connect' ? (
        <div className="card">
          <h2>Connect to the document system</h2>
          <p>
            A sign-in window of the document system opens; sign in there and allow access. It closes by itself when the
            connection is made.
          </p>
          <div className="row">
            <ConnectButton
              providerId={provider}
              label={existing ? 'Connect again' : 'Connect'}
              onConnected={(id) => void connected(id)}
            />
            {existing ? (
              <Button onClick={() => void connected(existing.id)} busy={create.busy} busyLabel="Creating…">
                Use my existing connection
              </Button>
            ) : null}
          </div>
          {create.busy ? <Spinner label="Connected. Creating the data source…" /> : null}
          <ErrorNotice error={create.error} />
          <Button kind="link" onClick={() => setStep('details')}>
            Back
          </Button>
        </div>
      ) : null}
      {step === 'folders' && dataSource ? (
        <div className="card">
          <h2>Pick folders</h2>
          <p className="muted">
            A checked folder takes everything below it; uncheck a subfolder to leave it out. Changes are saved at once.
          </p>
          <FolderPicker
            dataSource={dataSource}
            onSaved={setDataSource}
            recovery={(error) => <PickerRecovery error={error} dataSource={dataSource} onChanged={setDataSource} />}
          />
          <div className="row">
            <Button kind="primary" onClick={() => navigate(`/data-sources/${dataSource.id}`)}>
              Done: open the data source
            </Button>
          </div>
        </div>
      ) : null}
    </section>
  );
}
