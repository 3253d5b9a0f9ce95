export * from './queue.module';
export * from './job-data';
