import { useState } from 'react';
import type { Provider } from '../api/types';
import { useConsole } from '../session/console-context';
import { canManageConnectors } from '../session/session';
import { Button, Spinner } from '../ui/controls';
import { ErrorNotice, Notice } from '../ui/error-notice';
import { useLoad } from '../ui/hooks';
import { ProviderCard } from './provider-card';
import { ProviderForm } from './provider-form';

/** OAuth connectors: list, register, rotate the client secret, delete (admins and connector managers). */
export function ProvidersPage() {
  const { connector, session } = useConsole();
  const providers = useLoad(() => connector.providers.list(), [connector]);
  const [registering, setRegistering] = useState(false);
  const [registered, setRegistered] = useState<Provider | null>(null);
  const canManage = canManageConnectors(session);
  const list = providers.data ?? [];

  return (
    <section>
      <div className="page-head">
        <h1>OAuth connectors</h1>
        {canManage && !registering ? (
          <Button kind="primary" onClick={() => (setRegistering(true), setRegistered(null))}>
            Register connector
          </Button>
        ) : null}
      </div>
      {!canManage ? (
        <Notice title="Read-only">
          You need the admin role (or oauth-connectors:manage) to register or change connectors.
        </Notice>
      ) : null}
      {registering ? (
        <ProviderForm
          onCancel={() => setRegistering(false)}
          onRegistered={(p) => {
            setRegistering(false);
            setRegistered(p);
            providers.setData([...list, p]);
          }}
        />
      ) : null}
      {registered ? (
        <Notice kind="success" title={`Connector “${registered.name}” registered`}>
          <p>Users can now connect with it from the data-source wizard.</p>
          {registered.warnings.map((w) => (
            <p key={w}>
              <strong>Warning:</strong> {w}
            </p>
          ))}
        </Notice>
      ) : null}
      <ErrorNotice error={providers.error}>
        <Button onClick={() => void providers.reload()}>Try again</Button>
      </ErrorNotice>
      {providers.loading && !providers.data ? <Spinner label="Loading connectors…" /> : null}
      {providers.data && !list.length && !registering ? (
        <p className="empty">
          No connector is registered yet.
          {canManage ? ' Register one to let users connect their document system.' : ' Ask an admin to register one.'}
        </p>
      ) : null}
      <div className="cards">
        {list.map((p) => (
          <ProviderCard
            key={p.id}
            provider={p}
            canManage={canManage}
            onChanged={(next) => providers.setData(list.map((x) => (x.id === next.id ? next : x)))}
            onDeleted={() => providers.setData(list.filter((x) => x.id !== p.id))}
          />
        ))}
      </div>
    </section>
  );
}
