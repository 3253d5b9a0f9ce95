import { useState } from 'react';
import type { DataSource } from '../api/types';
import { useConsole } from '../session/console-context';
import { SelectField } from '../ui/controls';
import { ErrorNotice } from '../ui/error-notice';
import { useAction, useLoad } from '../ui/hooks';
import { ConnectButton } from './connect-button';

/**
 * A new authorization for a data source whose connection can no longer be refreshed: the OAuth popup
 * for the same connector, then the data source uses the new connection.
 */
export function Reconnect({
  dataSource,
  onChanged,
  label = 'Reconnect',
}: {
  dataSource: DataSource;
  onChanged: (dataSource: DataSource) => void;
  label?: string;
}) {
  const { connector } = useConsole();
  const known = useLoad(
    async () => ({ connections: await connector.connections.list(), providers: await connector.providers.list() }),
    [connector],
  );
  const [providerId, setProviderId] = useState('');
  const action = useAction();
  const own = known.data?.connections.find((c) => c.id === dataSource.connectionId);
  const chosen = providerId || own?.providerId || known.data?.providers[0]?.id || '';
  const connected = (connectionId: string) =>
    action.run(async () => onChanged(await connector.dataSources.update(dataSource.id, { connectionId })));
  return (
    <div className="recovery">
      {!own && (known.data?.providers.length ?? 0) > 1 ? (
        <SelectField
          label="Connector"
          value={chosen}
          onChange={setProviderId}
          options={known.data!.providers.map((p) => ({ value: p.id, label: p.name }))}
        />
      ) : null}
      <ConnectButton providerId={chosen} label={label} onConnected={connected} />
      <ErrorNotice error={action.error ?? known.error} />
    </div>
  );
}
