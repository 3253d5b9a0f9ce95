export * from './migrate';
export * from './database.module';
export * from './transaction';
