import 'reflect-metadata';
export * from './queue-names';
export * from './connector-events';
export * from './approvals';
export * from './approval-runtime-client';
export * from './views';
export * from './openapi';
