export * from './queue.module';
export * from './job-data';
export * from './priority-gate';
export * from './add-jobs';
export * from './dashboard/queue-dashboard.module';
export * from './queue-contract';
export * from './queue-processor';
