export * from './migrate';
export * from './database.module';
export * from './transaction';
export * from './outage-rider';
export * from './outage.module';
export * from './database-probe';
export * from './database-outages';
export * from './outbox-relay';
