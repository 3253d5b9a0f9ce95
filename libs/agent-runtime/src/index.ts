export * from './approval-runtime-client';
