export * from './queue.module';
export * from './job-data';
export * from './priority-gate';
