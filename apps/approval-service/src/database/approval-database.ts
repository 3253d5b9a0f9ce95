import { ServiceDatabaseOptions } from '@app/database';

/** The approval-service owns the `approval` schema. Features add their entities and migrations here. */
export const APPROVAL_SCHEMA = 'approval';

export const approvalDatabase: ServiceDatabaseOptions = {
  schema: APPROVAL_SCHEMA,
  entities: [],
  migrations: [],
};
