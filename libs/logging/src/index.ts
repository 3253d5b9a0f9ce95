export * from './redaction';
export * from './logging.module';
export * from './request-log-level';
export * from './start-up-quiet.logger';
