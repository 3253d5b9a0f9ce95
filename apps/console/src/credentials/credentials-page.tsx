import { FormEvent, useState } from 'react';
import { ApiError } from '../api/api-error';
import { useConsole } from '../session/console-context';
import { canManageConnectors } from '../session/session';
import { Button, Spinner } from '../ui/controls';
import { ErrorNotice, Notice } from '../ui/error-notice';
import { useAction, useLoad } from '../ui/hooks';
import { CredentialCard } from './credential-card';
import { credentialInput, CredentialDraft, CredentialFields, EMPTY_CREDENTIAL } from './credential-fields';
import { checkOnSave, SaveCheck } from './check-on-save';

/** Document-system credentials of the tenant: list, create, validate, rotate the password, delete. */
export function CredentialsPage() {
  const { connector, session, projectId } = useConsole();
  const credentials = useLoad(() => connector.credentials.list(), [connector]);
  const [creating, setCreating] = useState(false);
  const [draft, setDraft] = useState<CredentialDraft>(EMPTY_CREDENTIAL);
  const [checks, setChecks] = useState<Record<string, SaveCheck>>({});
  const action = useAction();
  const canManage = canManageConnectors(session);
  const list = credentials.data ?? [];

  const create = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      const created = await connector.credentials.create(credentialInput(draft, projectId));
      credentials.setData([...list, created]);
      const check = await checkOnSave(connector, created.id);
      setChecks((known) => ({ ...known, [created.id]: check }));
      // The check is kept with the credential: shown from the server, it is still there after a reload.
      await credentials.reload();
      setCreating(false);
      setDraft(EMPTY_CREDENTIAL);
    });
  };

  return (
    <section>
      <div className="page-head">
        <h1>Credentials</h1>
        {canManage && !creating ? (
          <Button kind="primary" onClick={() => setCreating(true)}>
            New credential
          </Button>
        ) : null}
      </div>
      {!canManage ? (
        <Notice title="Read-only">
          You need the admin role (or oauth-connectors:manage) to create or change credentials; you can still enter one
          in the data-source wizard.
        </Notice>
      ) : null}
      {creating ? (
        <form className="card form" onSubmit={create} aria-labelledby="new-credential" noValidate>
          <h2 id="new-credential">New document-system credential</h2>
          <CredentialFields
            draft={draft}
            onChange={setDraft}
            problems={action.error instanceof ApiError ? action.error.fieldProblems : {}}
          />
          <ErrorNotice error={action.error} />
          <div className="row">
            <Button type="submit" kind="primary" busy={action.busy} busyLabel="Saving…">
              Save credential
            </Button>
            <Button kind="link" onClick={() => (setCreating(false), action.clear())}>
              Cancel
            </Button>
          </div>
        </form>
      ) : null}
      <ErrorNotice error={credentials.error}>
        <Button onClick={() => void credentials.reload()}>Try again</Button>
      </ErrorNotice>
      {credentials.loading && !credentials.data ? <Spinner label="Loading credentials…" /> : null}
      {credentials.data && !list.length && !creating ? <p className="empty">No credential is saved yet.</p> : null}
      <div className="cards">
        {list.map((c) => (
          <CredentialCard
            key={c.id}
            credential={c}
            canManage={canManage}
            saveCheck={checks[c.id]}
            onChanged={(next) => credentials.setData(list.map((x) => (x.id === next.id ? next : x)))}
            onDeleted={() => credentials.setData(list.filter((x) => x.id !== c.id))}
            onChecked={() => void credentials.reload()}
          />
        ))}
      </div>
    </section>
  );
}
