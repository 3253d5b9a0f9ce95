export * from './queue-names';
