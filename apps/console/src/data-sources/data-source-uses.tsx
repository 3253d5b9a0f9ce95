import type { DataSource } from '../api/types';
import { useConsole } from '../session/console-context';
import { useLoad } from '../ui/hooks';

/**
 * Which connector and which credential a data source signs in with, by name. A credential the caller may
 * not list (a data source's own) and another user's connection are said as such.
 */
export function DataSourceUses({ dataSource }: { dataSource: DataSource }) {
  const { connector } = useConsole();
  const names = useLoad(async () => {
    const [credentials, connections, providers] = await Promise.all([
      connector.credentials.list().catch(() => []),
      connector.connections.list().catch(() => []),
      connector.providers.list().catch(() => []),
    ]);
    const credential = credentials.find((c) => c.id === dataSource.credentialId);
    const connection = connections.find((c) => c.id === dataSource.connectionId);
    const provider = providers.find((p) => p.id === connection?.providerId);
    return {
      credential: credential ? `${credential.name} (${credential.username} at ${credential.instanceUrl})` : null,
      connector: provider ? `${provider.name}, your connection` : null,
    };
  }, [connector, dataSource.credentialId, dataSource.connectionId]);
  if (!names.data) return null;
  return (
    <dl className="facts" aria-label="Signs in with">
      <dt>Connector</dt>
      <dd>{names.data.connector ?? "another user's connection"}</dd>
      <dt>Credential</dt>
      <dd className="break">{names.data.credential ?? "the data source's own"}</dd>
    </dl>
  );
}
