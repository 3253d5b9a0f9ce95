export * from './migrate';
export * from './database.module';
