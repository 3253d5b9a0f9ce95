export * from './redaction';
export * from './logging.module';
export * from './request-log-level';
