import { FormEvent, useState } from 'react';
import { ApiError } from '../api/api-error';
import type { Credential } from '../api/types';
import { useConsole } from '../session/console-context';
import { Button, StatusBadge, TextField } from '../ui/controls';
import { ErrorNotice, Notice } from '../ui/error-notice';
import { formatTime } from '../ui/format';
import { useAction } from '../ui/hooks';
import { SaveCheck, SaveCheckNotice } from './check-on-save';
import { CredentialValidation } from './credential-validation';

type Mode = 'view' | 'validate' | 'rotate' | 'delete';

/** One credential: where and who it signs in as; validate, rotate the password, delete. */
export function CredentialCard({
  credential,
  canManage,
  saveCheck,
  onChanged,
  onDeleted,
  onChecked,
}: {
  credential: Credential;
  canManage: boolean;
  /** What the document system said when it was saved here, if it was. */
  saveCheck?: SaveCheck;
  onChanged: (c: Credential) => void;
  onDeleted: () => void;
  /** A check's outcome was stored: the credential is worth reading again. */
  onChecked?: () => void;
}) {
  const { connector } = useConsole();
  const [mode, setMode] = useState<Mode>('view');
  const [password, setPassword] = useState('');
  const [rotated, setRotated] = useState(false);
  const action = useAction();

  const rotate = (event: FormEvent) => {
    event.preventDefault();
    const { name, type, instanceUrl, username, scope, projectId } = credential;
    void action.run(async () => {
      onChanged(
        await connector.credentials.update(credential.id, {
          name,
          type,
          instanceUrl,
          username,
          // A data source's own credential keeps its scope whatever is sent; the request must name one of the two.
          scope: scope === 'DataSource' ? 'Tenant' : scope,
          password,
          ...(projectId ? { projectId } : {}),
        }),
      );
      setPassword('');
      setMode('view');
      setRotated(true);
    });
  };
  const remove = () => action.run(async () => (await connector.credentials.remove(credential.id), onDeleted()));
  const open = (next: Mode) => () => (setMode(mode === next ? 'view' : next), setRotated(false), action.clear());

  return (
    <article className="card" aria-label={`Credential ${credential.name}`}>
      <header className="card-head">
        <h3>{credential.name}</h3>
        {credential.lastValidation ? (
          <StatusBadge status={credential.lastValidation.valid ? 'Valid' : 'Invalid'} />
        ) : null}
        <span className="muted">{credential.scope === 'Tenant' ? 'whole tenant' : 'one project'}</span>
      </header>
      <dl className="facts">
        <dt>Instance URL</dt>
        <dd className="break">{credential.instanceUrl}</dd>
        <dt>Username</dt>
        <dd>{credential.username}</dd>
        <dt>Password</dt>
        <dd>{credential.passwordConfigured ? 'set (encrypted)' : 'not set'}</dd>
        <dt>Updated</dt>
        <dd>{formatTime(credential.updatedAt)}</dd>
        <dt>Last check</dt>
        <dd data-testid="credential-check">{lastCheckSaid(credential)}</dd>
      </dl>
      <div className="row">
        <Button onClick={open('validate')} aria-expanded={mode === 'validate'}>
          Validate
        </Button>
        {canManage ? (
          <>
            <Button onClick={open('rotate')} aria-expanded={mode === 'rotate'}>
              Rotate password
            </Button>
            <Button kind="danger" onClick={open('delete')}>
              Delete
            </Button>
          </>
        ) : null}
      </div>
      {saveCheck && mode === 'view' && !rotated ? <SaveCheckNotice check={saveCheck} /> : null}
      {rotated ? <Notice kind="success" title="Password changed" /> : null}
      {mode === 'validate' ? <CredentialValidation credential={credential} onChecked={onChecked} /> : null}
      {mode === 'rotate' ? (
        <form className="inline-form" onSubmit={rotate}>
          <TextField
            label="New password"
            type="password"
            value={password}
            onChange={setPassword}
            required
            autoComplete="new-password"
            problems={action.error instanceof ApiError ? action.error.fieldProblems.password : undefined}
          />
          <Button type="submit" kind="primary" busy={action.busy} busyLabel="Saving…" disabled={!password}>
            Save password
          </Button>
        </form>
      ) : null}
      {mode === 'delete' ? (
        <div className="confirm">
          <p>Delete “{credential.name}”?</p>
          <Button kind="danger" onClick={remove} busy={action.busy} busyLabel="Deleting…">
            Yes, delete
          </Button>
        </div>
      ) : null}
      {mode !== 'validate' ? <ErrorNotice error={action.error} /> : null}
    </article>
  );
}

/** The stored outcome of the credential's last check: it stays after a reload, until the login changes. */
function lastCheckSaid(credential: Credential): string {
  const check = credential.lastValidation;
  if (!check) return 'not checked since it was last changed';
  if (check.valid) return `accepted by the document system, ${formatTime(check.checkedAt)}`;
  return `refused by the document system (${check.error ?? 'Credentials are invalid'}), ${formatTime(check.checkedAt)}`;
}
