import { promptDisconnects } from './prompt-disconnect';

export * from './redis-connection';
export * from './queue-connection';
export * from './delete-keys';

promptDisconnects();
