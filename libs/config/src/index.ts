export * from './base-env';
export * from './validate-env';
export * from './config.module';
export * from './trust-proxy';
export * from './secret-strength';
