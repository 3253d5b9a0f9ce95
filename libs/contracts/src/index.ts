export * from './queue-names';
export * from './connector-events';
export * from './approvals';
