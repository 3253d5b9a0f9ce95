import { ServiceDatabaseOptions } from '@app/database';

/** The connector-service owns the `connector` schema. Features add their entities and migrations here. */
export const CONNECTOR_SCHEMA = 'connector';

export const connectorDatabase: ServiceDatabaseOptions = {
  schema: CONNECTOR_SCHEMA,
  entities: [],
  migrations: [],
};
