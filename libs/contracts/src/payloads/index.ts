/**
 * What is validated when it crosses a boundary (class-validator): request bodies, queue payloads and the
 * names of the queues shared with the agent runtime. Server side only.
 */
import 'reflect-metadata';
export * from './queue-names';
export * from './approvals';
export * from './connector-events';
