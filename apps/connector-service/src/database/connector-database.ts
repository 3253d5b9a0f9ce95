import { ServiceDatabaseOptions } from '@app/database';
import { CredentialEntity } from '../credentials/credential.entity';
import { Credentials1795300000000 } from './migrations/1795300000000-credentials';

/** The connector-service owns the `connector` schema. Features add their entities and migrations here. */
export const CONNECTOR_SCHEMA = 'connector';

export const connectorDatabase: ServiceDatabaseOptions = {
  schema: CONNECTOR_SCHEMA,
  entities: [CredentialEntity],
  migrations: [Credentials1795300000000],
};
