import { FormEvent, useState } from 'react';
import { ApiError } from '../api/api-error';
import type { Provider } from '../api/types';
import { useConsole } from '../session/console-context';
import { Button, CopyValue, TextField } from '../ui/controls';
import { ErrorNotice, Notice } from '../ui/error-notice';
import { formatTime } from '../ui/format';
import { useAction } from '../ui/hooks';
import { Url } from '../ui/ids';

/** How the client secret reaches the token endpoint, in words (the API's value on hover). */
const AUTH_METHOD: Record<Provider['behaviour']['tokenEndpointAuthMethod'], string> = {
  CLIENT_SECRET_POST: 'Client secret in the request body',
  CLIENT_SECRET_BASIC: 'Client secret in an HTTP Basic header',
};

/** One registered connector: its settings, redirect URI, warnings, and (for managers) rotate and delete. */
export function ProviderCard({
  provider,
  canManage,
  onChanged,
  onDeleted,
}: {
  provider: Provider;
  canManage: boolean;
  onChanged: (p: Provider) => void;
  onDeleted: () => void;
}) {
  const { connector } = useConsole();
  const [mode, setMode] = useState<'view' | 'rotate' | 'delete'>('view');
  const [secret, setSecret] = useState('');
  const [rotated, setRotated] = useState(false);
  const action = useAction();

  const rotate = (event: FormEvent) => {
    event.preventDefault();
    const {
      name,
      provider: kind,
      authenticationType,
      clientId,
      authorizationEndpoint,
      tokenEndpoint,
      revokeEndpoint,
      supportedScopes,
      behaviour,
    } = provider;
    void action.run(async () => {
      onChanged(
        await connector.providers.update(provider.id, {
          name,
          provider: kind,
          authenticationType,
          clientId,
          clientSecret: secret,
          authorizationEndpoint,
          tokenEndpoint,
          revokeEndpoint,
          supportedScopes,
          behaviour,
        }),
      );
      setSecret('');
      setMode('view');
      setRotated(true);
    });
  };
  const remove = () => action.run(async () => (await connector.providers.remove(provider.id), onDeleted()));

  return (
    <article className="card" aria-label={`Connector ${provider.name}`}>
      <header className="card-head">
        <h3>{provider.name}</h3>
        <span className="muted">secret version {provider.secretVersion}</span>
      </header>
      <dl className="facts">
        <dt>Client ID</dt>
        <dd>{provider.clientId}</dd>
        <dt>Scopes</dt>
        <dd>{provider.supportedScopes.join(' ')}</dd>
        <dt>Token auth</dt>
        <dd title={provider.behaviour.tokenEndpointAuthMethod}>
          {AUTH_METHOD[provider.behaviour.tokenEndpointAuthMethod]}
        </dd>
        <dt>Authorization</dt>
        <dd>
          <Url value={provider.authorizationEndpoint} />
        </dd>
        <dt>Token</dt>
        <dd>
          <Url value={provider.tokenEndpoint} />
        </dd>
        <dt>Updated</dt>
        <dd>{formatTime(provider.updatedAt)}</dd>
      </dl>
      <CopyValue label="Redirect URI" value={provider.redirectUri} />
      {provider.warnings.map((w) => (
        <Notice key={w} kind="warning" title="Warning">
          <p>{w}</p>
        </Notice>
      ))}
      {rotated ? (
        <Notice kind="success" title={`Client secret rotated (version ${provider.secretVersion})`}>
          <p>Existing connections keep working until their tokens expire; new ones use the new secret.</p>
        </Notice>
      ) : null}
      {canManage && mode === 'view' ? (
        <div className="row">
          <Button onClick={() => (setMode('rotate'), setRotated(false))}>Rotate client secret</Button>
          <Button kind="danger" onClick={() => setMode('delete')}>
            Delete
          </Button>
        </div>
      ) : null}
      {mode === 'rotate' ? (
        <form className="inline-form" onSubmit={rotate}>
          <TextField
            label="New client secret"
            type="password"
            value={secret}
            onChange={setSecret}
            required
            autoComplete="new-password"
            problems={action.error instanceof ApiError ? action.error.fieldProblems.clientSecret : undefined}
          />
          <div className="row">
            <Button type="submit" kind="primary" busy={action.busy} busyLabel="Rotating…" disabled={!secret}>
              Save new secret
            </Button>
            <Button kind="link" onClick={() => setMode('view')}>
              Cancel
            </Button>
          </div>
        </form>
      ) : null}
      {mode === 'delete' ? (
        <div className="confirm" role="group" aria-label="Confirm delete">
          <p>Delete “{provider.name}”? Users will no longer be able to connect with it.</p>
          <div className="row">
            <Button kind="danger" onClick={remove} busy={action.busy} busyLabel="Deleting…">
              Yes, delete
            </Button>
            <Button kind="link" onClick={() => (setMode('view'), action.clear())}>
              Keep it
            </Button>
          </div>
        </div>
      ) : null}
      <ErrorNotice error={action.error} />
    </article>
  );
}
