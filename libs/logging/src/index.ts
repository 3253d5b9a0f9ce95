export * from './redaction';
export * from './logging.module';
